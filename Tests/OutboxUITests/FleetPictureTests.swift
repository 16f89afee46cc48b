import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// `outbox fleet --format svg|html` (issue 26, D356): the load curves with the
/// outages shaded where they were, a panel per profile of `--profiles` on the
/// same scales, at most 1000 points a curve without losing a spike, pages that
/// parse as XML and need nothing outside themselves; and, in headless
/// Chromium, that the shading and every panel's curves are drawn.
final class FleetPictureTests: XCTestCase {
    static let fleet = outageMixFleet

    func write(_ text: String, name: String = "fleet.fleet") -> String { temporaryFile(text, name: name) }

    func run(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let (status, out, err) = cli(["fleet"] + args)
        XCTAssertEqual(status, 0, err, file: file, line: line)
        XCTAssertEqual(err, "", file: file, line: line)
        return out
    }

    func parsed(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> XMLNode {
        let (root, why) = XMLNode.parse(text)
        return try XCTUnwrap(root, "not well-formed XML: " + why, file: file, line: line)
    }

    func double(_ node: XMLNode?, _ key: String) -> Double? { node?.attributes[key].flatMap(Double.init) }

    /// The x of the time tick at second `t` in `panel`.
    func tickX(_ panel: XMLNode, _ t: Int) -> Double? {
        double(panel.classed("tick").first { $0.attributes["data-t"] == "\(t)" }?.children.first { $0.name == "line" }, "x1")
    }

    func test_svg_wellFormed_theOutageShadedFromItsStartToItsEnd_theSameBytesEachTime() throws {
        let path = write(Self.fleet)
        let svg = run([path, "--format", "svg"])
        XCTAssertTrue(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        let root = try parsed(svg)
        XCTAssertEqual(root.name, "svg")
        let panels = root.classed("panel")
        XCTAssertEqual(panels.map { $0.attributes["data-profile"] }, ["ios 50% android 50%"])
        let panel = try XCTUnwrap(panels.first)
        // The shading starts at the tick of 1m and ends at the tick of 3m, and says what it was.
        let outage = try XCTUnwrap(panel.classed("outage").first)
        XCTAssertEqual(outage.attributes["data-from"], "60")
        XCTAssertEqual(outage.attributes["data-to"], "180")
        let rect = try XCTUnwrap(outage.children.first { $0.name == "rect" })
        let x = try XCTUnwrap(double(rect, "x")), w = try XCTUnwrap(double(rect, "width"))
        XCTAssertEqual(x, try XCTUnwrap(tickX(panel, 60)), accuracy: 0.11)
        XCTAssertEqual(x + w, try XCTUnwrap(tickX(panel, 180)), accuracy: 0.11)
        XCTAssertGreaterThan(w, 100)
        let name = panel.classed("outage-name").first
        XCTAssertEqual(name?.attributes["data-from"], "60")
        XCTAssertEqual(name?.allText, "outage 1m–3m: server timeout")
        XCTAssertEqual(try XCTUnwrap(double(name?.children.first, "x")), x + 4, accuracy: 0.11)
        XCTAssertEqual(
            panel.classed("tick").map { $0.allText }, ["0", "30s", "1m", "1m30s", "2m", "2m30s", "3m", "3m30s", "4m", "4m30s", "5m", "5m30s", "6m"])
        XCTAssertEqual(panel.classed("capacity").first?.attributes["data-capacity"], "3")
        // A curve per kind, a point per second of the 6 minutes.
        let curves = panel.classed("curve")
        XCTAssertEqual(curves.map { $0.attributes["data-curve"] }, ["queued", "attempts", "delivered", "over", "failed"])
        let attempts = try XCTUnwrap(curves.first { $0.attributes["data-curve"] == "attempts" })
        XCTAssertEqual(attempts.attributes["points"]?.split(separator: " ").count, 360)
        XCTAssertTrue(root.allText.contains("one point per second of virtual time (360 points a curve)"))
        // The summary's figures beside: the peak after the recovery as the text report gives it.
        let text = run([path])
        let figures = try XCTUnwrap(panel.classed("figures").first).children.map(\.text)
        let peak = try XCTUnwrap(figures.firstIndex(of: "peak after the recovery"))
        XCTAssertEqual(root.classed("key").first { $0.attributes["data-legend"] == "peak" }?.allText, "peak after the recovery")
        XCTAssertTrue(text.contains("peak \(figures[peak + 1].dropLast(2)) attempts/s at \(figures[peak + 3])"), text)
        XCTAssertEqual(run([path, "--format", "svg"]), svg, "the same file draws the same bytes")
    }

    func test_svg_profiles_aPanelPerProfile_onTheSameScales() throws {
        let path = write(Self.fleet)
        let root = try parsed(run([path, "--profiles", "ios,android", "--format", "svg"]))
        let panels = root.classed("panel")
        XCTAssertEqual(panels.map { $0.attributes["data-profile"] }, ["ios", "android"])
        XCTAssertEqual(panels.map { $0.children.first { $0.name == "text" }?.text }, ["ios", "android"])
        // The same count axes in each, and the capacity at the same height within its panel.
        func counts(_ p: XMLNode) -> [String] { p.classed("count").map { ($0.attributes["data-axis"] ?? "") + " " + $0.allText } }
        XCTAssertEqual(counts(panels[0]), counts(panels[1]))
        XCTAssertTrue(counts(panels[0]).contains("load 0") && counts(panels[0]).contains("queued 0"))
        func top(_ p: XMLNode) -> Double? { double(p.classed("outage").first?.children.first, "y") }
        func capacityY(_ p: XMLNode) -> Double? { double(p.classed("capacity").first?.children.first, "y1") }
        let shift = try XCTUnwrap(top(panels[1])) - XCTUnwrap(top(panels[0]))
        XCTAssertGreaterThan(shift, 200, "the panels are stacked")
        XCTAssertEqual(try XCTUnwrap(capacityY(panels[1])) - XCTUnwrap(capacityY(panels[0])), shift, accuracy: 0.11)
        XCTAssertEqual(tickX(panels[0], 60), tickX(panels[1], 60))
        // The runs differ: their attempts curves are not the same.
        func attempts(_ p: XMLNode) -> String? { p.classed("curve").first { $0.attributes["data-curve"] == "attempts" }?.attributes["points"] }
        XCTAssertNotEqual(attempts(panels[0]), attempts(panels[1]))
    }

    func test_html_thePictureAndASummaryTable_aColumnPerProfile_nothingOutside() throws {
        let path = write(Self.fleet)
        let page = run([path, "--profiles", "ios,android", "--format", "html"])
        XCTAssertTrue(page.hasPrefix("<!DOCTYPE html>\n"))
        let root = try parsed(String(page.drop { $0 != "\n" }.dropFirst()))
        XCTAssertEqual(root.all.filter { $0.name == "svg" }.map { $0.attributes["class"] }, ["fleet"])
        XCTAssertEqual(root.classed("panel").count, 2)
        XCTAssertEqual(root.classed("figures").count, 0, "the figures once, in the table, not beside the panels too")
        let table = try XCTUnwrap(root.classed("summary").first)
        let rows = table.children.filter { $0.name == "tr" }.map { $0.children.map(\.allText) }
        XCTAssertEqual(rows.first, ["", "ios", "android"])
        XCTAssertTrue(rows.dropFirst().allSatisfy { $0.count == 3 })
        // The table's rows are the text report's figures, value for value.
        let text = run([path, "--profiles", "ios,android"])
        for row in rows.dropFirst() {
            XCTAssertTrue(
                text.split(separator: "\n").contains { line in
                    let cells = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    return cells == row
                }, "\(row) is not a row of the text report")
        }
        for outside in ["src=", "href=", "url(", "@import", "<script", "<link"] {
            XCTAssertFalse(page.contains(outside), outside)
        }
        XCTAssertEqual(page.components(separatedBy: "http").count - 1, 1, "no address but the SVG namespace")
    }

    /// Text from the file is escaped: a file named with markup parses, its name intact.
    func test_aFileNamedWithMarkup_isEscaped() throws {
        let path = write(Self.fleet, name: "a<b&\"c'>.fleet")
        let root = try parsed(run([path, "--format", "svg"]))
        XCTAssertEqual(root.children.first { $0.name == "title" }?.text.hasPrefix("outbox fleet " + path + ":"), true)
    }

    /// Two hours are drawn with at most 1000 points a curve, each the most of its
    /// bucket: a one-second spike keeps its height, where a mean would flatten it.
    func test_aLongRun_atMost1000PointsACurve_aOneSecondSpikeKept() throws {
        var r = FleetResult(seconds: 7200)
        for s in 0..<7200 {
            r.attempts[s] = 5
            r.delivered[s] = 5
            r.new[s] = 5
        }
        r.attempts[4321] = 999
        r.over[4321] = 994
        let sum = FleetSummary(r, outages: [])
        let chart = FleetPicture.Chart(
            title: "fleet spike", capacity: 100, outages: [], panels: [.init(label: "ios", result: r, summary: sum)],
            figures: [("events", ["36000"])])
        let svg = FleetPicture().svg(chart)
        XCTAssertEqual(FleetPicture().svg(chart), svg)
        XCTAssertLessThan(svg.utf8.count, 100_000)
        let root = try parsed(svg)
        let panel = try XCTUnwrap(root.classed("panel").first)
        for curve in panel.classed("curve") {
            XCTAssertLessThanOrEqual(curve.attributes["points"]?.split(separator: " ").count ?? 0, 1002)
        }
        let attempts = try XCTUnwrap(panel.classed("curve").first { $0.attributes["data-curve"] == "attempts" })
        let points = (attempts.attributes["points"] ?? "").split(separator: " ").map { p in
            p.split(separator: ",").compactMap { Double($0) }
        }
        XCTAssertEqual(points.count, 900)
        let highest = try XCTUnwrap(points.min { $0[1] < $1[1] })
        // Where 999 is on the counts axis, and where second 4321 is on the time axis.
        func countY(_ v: Int) -> Double? {
            double(panel.classed("count").first { $0.attributes["data-axis"] == "load" && $0.attributes["data-v"] == "\(v)" }?.children.first, "y1")
        }
        let y0 = try XCTUnwrap(countY(0)), y1000 = try XCTUnwrap(countY(1000))
        XCTAssertEqual(highest[1], y0 - 0.999 * (y0 - y1000), accuracy: 0.11)
        let x0 = try XCTUnwrap(tickX(panel, 0)), x3600 = try XCTUnwrap(tickX(panel, 3600))
        let spikeX = x0 + 4321 * (x3600 - x0) / 3600
        XCTAssertEqual(highest[0], spikeX, accuracy: 8 * (x3600 - x0) / 3600)
        XCTAssertEqual(points.filter { $0[1] < y0 - 0.5 * (y0 - y1000) }.count, 1, "one point is the spike")
        XCTAssertTrue(root.allText.contains("each point is the most in one second of its 8 s (7200 s drawn as 900 points a curve)"))
        XCTAssertTrue(panel.classed("tick").contains { $0.allText == "120m" })
        // Without an outage the circled peak is the whole run's, and the legend names it as the summary does.
        XCTAssertEqual(root.classed("key").first { $0.attributes["data-legend"] == "peak" }?.allText, "peak")
    }

    // MARK: In a browser

    /// Chromium draws the picture (not blank), the outage's shading (taking it
    /// out changes the pixels) and the second profile's curves.
    func test_chromium_drawsTheShadingAndEachPanelsCurves() throws {
        let browser = try HeadlessChromium()
        defer { browser.remove() }
        let svg = run([write(Self.fleet), "--profiles", "ios,android", "--format", "svg"])
        let shot = try browser.screenshot(svg, ext: "svg")
        let blank = try browser.screenshot(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"900\"><rect width=\"1200\" height=\"900\" fill=\"#1c1c1c\"/></svg>",
            ext: "svg")
        XCTAssertNotEqual(shot, blank)
        XCTAssertGreaterThan(shot.count, 10 * blank.count, "the picture's screenshot is barely bigger than a blank one's")
        let lines = svg.split(separator: "\n", omittingEmptySubsequences: false)
        let noOutage = lines.filter { !$0.hasPrefix("<g class=\"outage\"") }
        XCTAssertLessThan(noOutage.count, lines.count)
        XCTAssertNotEqual(try browser.screenshot(noOutage.joined(separator: "\n"), ext: "svg"), shot, "the shading changed no pixel")
        var panel = ""
        let noAndroidCurves = lines.filter { line in
            if line.hasPrefix("<g class=\"panel\" data-profile=\"") { panel = String(line) }
            return !(panel.contains("\"android\"") && line.hasPrefix("<polyline class=\"curve\""))
        }
        XCTAssertEqual(lines.count - noAndroidCurves.count, 4)
        XCTAssertNotEqual(
            try browser.screenshot(noAndroidCurves.joined(separator: "\n"), ext: "svg"), shot,
            "android's curves changed no pixel")
    }
}
