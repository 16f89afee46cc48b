import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// Issue 22, item 21: the timeline picture as a reader sees it. Over every
/// example's picture (`outbox run`, `outbox compare` on the file's own profiles
/// and with `--profiles ios,android,flutter`) and every page kept in docs/: every kind of mark drawn
/// has its legend entry, drawn the same way; no two texts overlap (their boxes
/// estimated from the characters and the font size); every text reads at 4.5:1
/// or more (WCAG AA) on what is drawn behind it; tick labels stay apart; a short
/// story fills a 1400-pixel window.
final class TimelinePictureLayoutTests: XCTestCase {
    override func setUpWithError() throws { try skipUnderThreadSanitizer("the picture laid out in memory") }

    /// One picture: where it came from, and its parsed `<svg>` element.
    struct Picture {
        let name: String
        let svg: XMLNode
        /// The page's `<style>` text (HTML only).
        let style: String
        let page: XMLNode?
    }

    func cli(_ args: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = CLI.main(args, console: console)
        return (status, console.out, console.err)
    }

    static var examples: [String] {
        let fm = FileManager.default
        var files: [String] = []
        for dir in ["examples", "examples/differences", "examples/what-if"] {
            let names = (try? fm.contentsOfDirectory(atPath: packageRoot + "/" + dir)) ?? []
            files += names.filter { $0.hasSuffix(".outbox") }.sorted().map { packageRoot + "/" + dir + "/" + $0 }
        }
        return files
    }

    func picture(_ name: String, _ text: String) throws -> Picture {
        let (root, why) = XMLNode.parse(text)
        let r = try XCTUnwrap(root, name + ": not well-formed XML: " + why)
        let svg = try XCTUnwrap(r.name == "svg" ? r : r.all.first { $0.name == "svg" }, name + ": no <svg>")
        let style = r.all.first { $0.name == "style" }?.text ?? ""
        return Picture(name: name, svg: svg, style: style, page: r.name == "html" ? r : nil)
    }

    /// Every picture the tests look at: each example run and compared, and the pages in docs/.
    func pictures() throws -> [Picture] {
        var out: [Picture] = []
        for file in Self.examples {
            let (_, run, err) = cli(["run", "--format", "svg", file])
            XCTAssertFalse(run.isEmpty, file + ": " + err)
            out.append(try picture("run " + file, run))
            let (_, cmp, cerr) = cli(["compare", "--format", "html", "--profiles", "ios,android,flutter", file])
            XCTAssertFalse(cmp.isEmpty, file + ": " + cerr)
            out.append(try picture("compare " + file, cmp))
            // And on the profiles the file names itself (the what-ifs' own .profile files).
            let (_, own, oerr) = cli(["compare", "--format", "svg", file])
            XCTAssertFalse(own.isEmpty, file + ": " + oerr)
            out.append(try picture("compare (its profiles) " + file, own))
        }
        let docs = packageRoot + "/docs/pictures"
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: docs)) ?? []).sorted() {
            out.append(try picture("docs/pictures/" + name, String(contentsOfFile: docs + "/" + name, encoding: .utf8)))
        }
        out.append(
            try picture(
                "docs/timeline.html", String(contentsOfFile: packageRoot + "/docs/timeline.html", encoding: .utf8)))
        XCTAssertGreaterThan(out.count, 30)
        return out
    }

    // MARK: Geometry read back from the markup

    struct Box: CustomStringConvertible {
        let x0: Double, y0: Double, x1: Double, y1: Double
        func overlaps(_ o: Box) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
        var description: String { "(\(Int(x0)),\(Int(y0)))–(\(Int(x1)),\(Int(y1)))" }
    }

    /// Each element with its offset from the `translate(x y)` of the groups around it.
    func placed(_ n: XMLNode, dx: Double = 0, dy: Double = 0) -> [(XMLNode, Double, Double)] {
        var x = dx, y = dy
        if let t = n.attributes["transform"], t.hasPrefix("translate(") {
            let v = t.dropFirst(10).dropLast().split(separator: " ").compactMap { Double($0) }
            if v.count == 2 {
                x += v[0]
                y += v[1]
            }
        }
        return [(n, x, y)] + n.children.flatMap { placed($0, dx: x, dy: y) }
    }

    func number(_ n: XMLNode, _ key: String) -> Double { Double(n.attributes[key] ?? "") ?? 0 }

    /// A text's box: 0.6 of its size per character, from 0.75 of its size above the baseline to 0.2 below.
    func box(_ t: XMLNode, _ dx: Double, _ dy: Double) -> Box {
        let size = Double(t.attributes["font-size"] ?? "12") ?? 12
        let w = Double(t.text.count) * size * 0.6
        let x = number(t, "x") + dx, y = number(t, "y") + dy
        let x0 = t.attributes["text-anchor"] == "middle" ? x - w / 2 : t.attributes["text-anchor"] == "end" ? x - w : x
        return Box(x0: x0, y0: y - 0.75 * size, x1: x0 + w, y1: y + 0.2 * size)
    }

    func texts(_ p: Picture) -> [(node: XMLNode, box: Box)] {
        placed(p.svg).filter { $0.0.name == "text" }.map { ($0.0, box($0.0, $0.1, $0.2)) }
    }

    // MARK: Colour, computed here from WCAG's formulas

    func rgb(_ hex: String) -> [Double] {
        let v = Int(hex.dropFirst(), radix: 16) ?? 0
        return [Double(v >> 16 & 255) / 255, Double(v >> 8 & 255) / 255, Double(v & 255) / 255]
    }

    func luminance(_ c: [Double]) -> Double {
        let l = c.map { $0 <= 0.03928 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]
    }

    func contrast(_ a: [Double], _ b: [Double]) -> Double {
        let la = luminance(a), lb = luminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    // MARK: The tests

    /// Every kind of mark drawn (`data-legend` on its group) has an entry in the
    /// legend whose swatch has a shape of the same element and colour; the
    /// legend lists nothing the picture does not draw. The completion's cyan
    /// diamond under an iOS answer is the case the trial found missing.
    func test_everyMarkDrawn_hasItsLegendEntry_drawnTheSameWay() throws {
        var sawDiamond = false
        for p in try pictures() {
            let legend = try XCTUnwrap(p.svg.classed("legend").first, p.name + ": no legend")
            let entries = legend.all.filter { $0.attributes["class"] == "key" }
            var byKey: [String: XMLNode] = [:]
            for e in entries { byKey[e.attributes["data-legend"] ?? ""] = e }
            let legendNodes = Set(legend.all.map { ObjectIdentifier($0) })
            let marks = p.svg.all.filter {
                $0.attributes["data-legend"] != nil && !legendNodes.contains(ObjectIdentifier($0))
            }
            XCTAssertFalse(marks.isEmpty, p.name)
            func shapes(_ n: XMLNode) -> [String] {
                n.children.filter { ["rect", "circle", "line", "path"].contains($0.name) }.map {
                    $0.name + " " + ($0.attributes["fill"] ?? $0.attributes["stroke"] ?? "?")
                }
            }
            for m in marks {
                let key = m.attributes["data-legend"]!
                guard let entry = byKey[key] else {
                    XCTFail(
                        "\(p.name): a \(key) mark (\(m.tooltip ?? "")) has no legend entry; the legend has \(entries.map { $0.allText })"
                    )
                    continue
                }
                let shape = try XCTUnwrap(shapes(m).first, "\(p.name): a \(key) mark draws no shape")
                XCTAssertTrue(
                    shapes(entry).contains(shape),
                    "\(p.name): the legend's `\(entry.allText)` swatch draws \(shapes(entry)), the mark \(shape)")
                if key == "completion" && shape.hasPrefix("path") { sawDiamond = true }
            }
            let drawn = Set(marks.map { $0.attributes["data-legend"]! })
            XCTAssertEqual(Set(byKey.keys), drawn, "\(p.name): legend entries for marks not drawn")
        }
        XCTAssertTrue(sawDiamond, "no picture drew a completion diamond")
    }

    /// No two texts overlap, anywhere in the picture: labels, tick labels, the
    /// breaks' lengths, lane names, final states, the legend. The trial's case:
    /// `compare --format html` of examples/differences/offline.outbox, where the
    /// device row's `launch` at 30s ran into the Android and Flutter lanes' `200`.
    func test_noTwoTextsOverlap() throws {
        var checked = 0
        for p in try pictures() {
            let all = texts(p)
            for i in all.indices {
                for j in all.indices where j > i && all[i].box.overlaps(all[j].box) {
                    XCTFail(
                        "\(p.name): `\(all[i].node.text)` at \(all[i].box) overlaps `\(all[j].node.text)` at \(all[j].box)"
                    )
                }
            }
            checked += all.count
        }
        XCTAssertGreaterThan(checked, 1000)
        // The trial's compare picture still labels every launch, close and answer.
        let (_, html, _) = cli(["compare", "--format", "html", TimelinePictureTests.offline])
        let svg = try picture("offline", html).svg
        for g in svg.classed("group") {
            XCTAssertEqual(
                g.classed("app").map { $0.children.first { $0.name == "text" }?.text }, ["launch", "close", "launch"],
                g.attributes["data-profile"] ?? "")
            XCTAssertEqual(
                g.classed("answer").compactMap { $0.children.first { $0.name == "text" }?.text }.last, "200")
        }
    }

    /// Every text's colour has a contrast of at least 4.5:1 with what is drawn
    /// behind it: the rectangles under five points along its box, blended by
    /// their opacity (the offline shading, a shortened stretch, the page). On a
    /// page, the stylesheet's text colours and the final-state cells too.
    func test_everyText_readsAt4point5to1_onItsBackground() throws {
        for p in try pictures() {
            let rects = placed(p.svg).filter { $0.0.name == "rect" }.map { (r, dx, dy) in
                (
                    Box(
                        x0: number(r, "x") + dx, y0: number(r, "y") + dy, x1: number(r, "x") + dx + number(r, "width"),
                        y1: number(r, "y") + dy + number(r, "height")), rgb(r.attributes["fill"] ?? "#000000"),
                    Double(r.attributes["fill-opacity"] ?? "1") ?? 1
                )
            }
            for (t, b) in texts(p) {
                let fg = rgb(try XCTUnwrap(t.attributes["fill"], "\(p.name): `\(t.text)` has no fill"))
                for k in 0..<5 {
                    let x = b.x0 + (b.x1 - b.x0) * Double(k) / 4, y = (b.y0 + b.y1) / 2
                    var bg = [0.0, 0.0, 0.0]
                    for (r, c, a) in rects where r.x0 <= x && x <= r.x1 && r.y0 <= y && y <= r.y1 {
                        bg = zip(bg, c).map { $0 + ($1 - $0) * a }
                    }
                    let ratio = contrast(fg, bg)
                    XCTAssertGreaterThanOrEqual(
                        ratio, 4.5,
                        "\(p.name): `\(t.text)` in \(t.attributes["fill"]!) at (\(Int(x)),\(Int(y))) on \(bg.map { Int($0 * 255) }): \(ratio)"
                    )
                    if ratio < 4.5 { break }
                }
            }
            guard let page = p.page else { continue }
            let body = try XCTUnwrap(p.style.range(of: "background: #"), p.name)
            let pageBG = rgb(String(p.style[p.style.index(before: body.upperBound)...].prefix(7)))
            var colours = p.style.components(separatedBy: "color: #").dropFirst().map { "#" + $0.prefix(6) }
            colours += page.all.compactMap { $0.attributes["style"] }.filter { $0.hasPrefix("color: #") }.map {
                String($0.dropFirst(7).prefix(7))
            }
            XCTAssertGreaterThan(colours.count, 6, p.name)
            for c in colours {
                XCTAssertGreaterThanOrEqual(contrast(rgb(c), pageBG), 4.5, "\(p.name): the page's text colour \(c)")
            }
        }
    }

    /// Moments close together: only as many tick labels as fit, each two
    /// characters clear of the next; the first (0) is always labelled.
    func test_crowdedAxis_tickLabelsThinnedApart() throws {
        let dir = NSTemporaryDirectory() + "outbox-ticks-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/crowded.outbox"
        var scenario = "profile ios\nat 0 launch\n"
        for k in 0..<40 { scenario += "at \(3_600_000 + k * 40)ms track e\(k)\n" }
        try scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["run", "--format", "svg", file])
        XCTAssertEqual(status, 0, err)
        let p = try picture(file, out)
        let ticks = texts(p).filter { $0.node.attributes["y"] == "13" }.sorted { $0.box.x0 < $1.box.x0 }
        XCTAssertEqual(ticks.first?.node.text, "0")
        XCTAssertTrue(ticks.contains { $0.node.text == "1h0m0s" }, "\(ticks.map(\.node.text))")
        XCTAssertGreaterThan(ticks.count, 3)
        for (a, b) in zip(ticks, ticks.dropFirst()) {
            XCTAssertGreaterThanOrEqual(
                b.box.x0 - a.box.x1, 2 * 10 * 0.6, "`\(a.node.text)` and `\(b.node.text)` are too close")
        }
        // Each moment keeps its grid line, labelled or not.
        XCTAssertGreaterThan(p.svg.children.filter { $0.name == "line" && $0.attributes["y1"] == "30" }.count, 40)
    }

    /// A short story fills a 1400-pixel window: the ladder's picture is stretched
    /// to 1340 pixels (it was 900, half the window empty) and shrinks to a
    /// narrower window on a page, down to 80%; a long story keeps its own width
    /// and scrolls.
    func test_shortStoryFillsTheWindow_longOneScrolls() throws {
        let (_, html, _) = cli(["run", "--format", "html", TimelinePictureTests.ladder])
        let svg = try picture("ladder", html).svg
        let width = try XCTUnwrap(Double(svg.attributes["width"] ?? ""))
        XCTAssertEqual(width, 1340, accuracy: 2)
        XCTAssertEqual(svg.attributes["style"], "max-width: 100%; min-width: 1072px; height: auto")
        // The lanes reach across: the last answer is past the middle of the window.
        let lastAnswer = try XCTUnwrap(svg.classed("answer").last?.children.first { $0.name == "circle" })
        XCTAssertGreaterThan(number(lastAnswer, "cx"), 800)
        let final = try XCTUnwrap(svg.classed("final").first?.children.first { $0.name == "text" })
        XCTAssertLessThanOrEqual(number(final, "x") + Double(final.text.count) * 12 * 0.6, width)

        let (_, long, _) = cli(["run", "--format", "html", packageRoot + "/examples/linktrail-offline-qa.outbox"])
        let wide = try picture("offline-qa", long).svg
        XCTAssertGreaterThan(Double(wide.attributes["width"] ?? "") ?? 0, 1340)
        XCTAssertNil(wide.attributes["style"], "a picture wider than the window scrolls, its text kept at its size")
    }
}
