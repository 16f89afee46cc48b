import Foundation
import XCTest

/// Headless Chromium (Debian's `chromium`; `.ci/run` installs it) taking
/// screenshots of pages, for the tests that check a picture as a browser draws
/// it (issue 14, item 5; issue 26). `init` skips the test where none is installed.
struct HeadlessChromium {
    let path: String
    /// A temporary folder of the test's own for pages, screenshots and profiles.
    let dir: String

    init() throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard
            let found = (paths + ["/usr/bin"]).map({ $0 + "/chromium" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw XCTSkip("chromium is not installed: `apt-get install -y chromium` (CI's .ci/run installs it)")
        }
        path = found
        dir = NSTemporaryDirectory() + "outbox-browser-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: dir) }

    /// `page` (HTML or SVG, by `ext`) as Chromium draws it in a window of `width`×`height`.
    func screenshot(
        _ page: String, ext: String, width: Int = 1200, height: Int = 900, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Data {
        let n = UInt32.random(in: 0...UInt32.max)
        let source = dir + "/page-\(n).\(ext)", png = dir + "/shot-\(n).png", profile = dir + "/profile-\(n)"
        try page.write(toFile: source, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = [
            "120", path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--force-device-scale-factor=1", "--user-data-dir=" + profile, "--window-size=\(width),\(height)",
            "--screenshot=" + png, "file://" + source,
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "chromium failed on \(source)", file: file, line: line)
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(
            PNGHeader(data)?.size, PNGHeader.Size(width: width, height: height), "not a PNG of the window's size",
            file: file, line: line)
        return data
    }
}
