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
    var browser: HeadlessChromium?

    override func setUpWithError() throws { browser = try HeadlessChromium() }

    override func tearDown() { browser?.remove() }

    /// `page` (HTML or SVG, by `ext`) as Chromium draws it in a window of `width`×`height`.
    func screenshot(_ page: String, ext: String, width: Int = 1200, height: Int = 900) throws -> Data {
        try XCTUnwrap(browser).screenshot(page, ext: ext, width: width, height: height)
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
