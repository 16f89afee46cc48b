import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// Issue 14, item 5: the pictures as a browser draws them. Headless Chromium
/// (Debian's `chromium`; `.ci/run` installs it) takes screenshots; the test checks
/// each is a real PNG of the window's size, that the page is not blank (its PNG
/// differs from, and is far larger than, a page with nothing but the background),
/// and that every request's lane is drawn: removing any one lane's markup changes
/// the pixels. Skipped, saying so, where no chromium is installed.
final class TimelineBrowserTests: XCTestCase {
    var dir = ""
    var chromium = ""

    override func setUpWithError() throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard
            let found = (paths + ["/usr/bin"]).map({ $0 + "/chromium" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw XCTSkip("chromium is not installed: `apt-get install -y chromium` (CI's .ci/run installs it)")
        }
        chromium = found
        dir = NSTemporaryDirectory() + "outbox-browser-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if !dir.isEmpty { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// `page` (HTML or SVG, by `ext`) as Chromium draws it in a window of `width`×`height`.
    func screenshot(_ page: String, ext: String, width: Int = 1200, height: Int = 900) throws -> Data {
        let n = UInt32.random(in: 0...UInt32.max)
        let file = dir + "/page-\(n).\(ext)", png = dir + "/shot-\(n).png", profile = dir + "/profile-\(n)"
        try page.write(toFile: file, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = [
            "120", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--force-device-scale-factor=1", "--user-data-dir=" + profile, "--window-size=\(width),\(height)",
            "--screenshot=" + png, "file://" + file,
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "chromium failed on \(file)")
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(
            PNGHeader(data)?.size, PNGHeader.Size(width: width, height: height), "not a PNG of the window's size")
        return data
    }

    /// `markup` without the lines that draw lane `id` (each lane is one line).
    func withoutLane(_ markup: String, _ id: Int?) -> String {
        markup.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            guard line.hasPrefix("<g class=\"lane\" data-request=\"") else { return true }
            return id.map { !line.hasPrefix("<g class=\"lane\" data-request=\"\($0)\"") } ?? false
        }.joined(separator: "\n")
    }

    func test_ladderPage_drawnNotBlank_itsLaneDrawn() throws {
        let page = try TimelinePictureTests.ladderPage()
        let shot = try screenshot(page, ext: "html")
        let background =
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/><style>body { background: #1c1c1c; }</style></head><body></body></html>"
        let blank = try screenshot(background, ext: "html")
        XCTAssertNotEqual(shot, blank)
        XCTAssertGreaterThan(shot.count, 10 * blank.count, "the page's screenshot is barely bigger than a blank one's")
        XCTAssertNotEqual(try screenshot(withoutLane(page, nil), ext: "html"), shot, "the lane changed no pixel")
    }

    func test_purgeSVG_everyLaneDrawn() throws {
        let console = Console.capturing()
        XCTAssertEqual(
            CLI.main(["run", "--format", "svg", TimelinePictureTests.purge], console: console), 0, console.err)
        let svg = console.out
        let shot = try screenshot(svg, ext: "svg", width: 2400, height: 400)
        for id in 1...6 {
            XCTAssertTrue(svg.contains("<g class=\"lane\" data-request=\"\(id)\""))
            XCTAssertNotEqual(
                try screenshot(withoutLane(svg, id), ext: "svg", width: 2400, height: 400), shot,
                "lane #\(id) changed no pixel")
        }
    }
}
