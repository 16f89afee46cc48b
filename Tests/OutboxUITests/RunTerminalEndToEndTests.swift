import Foundation
import OutboxTestSupport
import XCTest

/// `outbox run` with stdout a real terminal (tmux): the text timeline fits its
/// 80 columns without wrapping and is coloured; NO_COLOR takes the colour away;
/// a pipe gets the contract's full lines (docs/scenarios.md, "On a terminal").
/// The file is named by a path of at least 150 characters wherever the checkout
/// is: the summary's path gives way in its middle, never the verdict (issue 22).
extension EndToEndTests {
    func test_run_onATerminal_fits80Columns_colourUnlessNoColor() throws {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let name = "/linktrail-offline-qa.outbox"
        let folder = work + "/" + String(repeating: "f", count: max(1, 150 - work.count - 1 - name.count))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + name
        XCTAssertGreaterThanOrEqual(file.count, 150)
        try FileManager.default.copyItem(atPath: packageRoot + "/examples" + name, toPath: file)
        let piped = sh("\(binary) run \(file)").1.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertTrue(piped.contains { $0.count > 80 }, "the pipe's lines are the full ones")
        for noColor in [false, true] {
            let env = noColor ? "NO_COLOR=1 " : "env -u NO_COLOR "
            XCTAssertTrue(
                start("cd \(work) && LANG=C.UTF-8 \(env)\(binary) run \(file); exec sleep 60", width: 80, height: 90))
            guard waitFor("24 passed, 0 failed") else { return }
            // Not wrapped: as many screen lines as the pipe's lines, none wider than 80.
            let shown = sh("\(tmux) capture-pane -p").1.split(separator: "\n").filter { !$0.isEmpty }
            XCTAssertEqual(shown.count, piped.count, shown.joined(separator: "\n"))
            XCTAssertTrue(shown.allSatisfy { $0.count <= 80 }, shown.joined(separator: "\n"))
            XCTAssertTrue(shown.contains { $0.hasPrefix("00:00:09.000 #2   event   add_to_c… in-flight→queued") })
            let summary = String(shown.last ?? "")
            XCTAssertTrue(summary.hasPrefix(String(file.prefix(14)) + "…"), summary)
            XCTAssertTrue(summary.hasSuffix("/linktrail-offline-qa.outbox: 24 passed, 0 failed …"), summary)
            XCTAssertEqual(summary.count, 80, summary)
            // Colour: escape sequences in the pane's cells, or none at all.
            let cells = sh("\(tmux) capture-pane -p -e").1
            XCTAssertEqual(cells.contains("\u{1b}["), !noColor, cells)
        }
    }
}
