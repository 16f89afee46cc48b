import Foundation
import XCTest

/// `outbox run` with stdout a real terminal (tmux): the text timeline fits its
/// 80 columns without wrapping and is coloured; NO_COLOR takes the colour away;
/// a pipe gets the contract's full lines (docs/scenarios.md, "On a terminal").
extension EndToEndTests {
    func test_run_onATerminal_fits80Columns_colourUnlessNoColor() {
        XCTAssertEqual(sh("command -v tmux").0, 0, "tmux is needed (.ci/run installs it)")
        let file = uiPackageRoot + "/examples/linktrail-offline-qa.outbox"
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
            // Colour: escape sequences in the pane's cells, or none at all.
            let cells = sh("\(tmux) capture-pane -p -e").1
            XCTAssertEqual(cells.contains("\u{1b}["), !noColor, cells)
        }
    }
}
