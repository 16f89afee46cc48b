import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// Big scenario files (issue 10, docs/reliability.md "Big inputs"): the byte
/// lexer says what `LineLexer` says, steps are kept once, and a run that does
/// not keep its journal tells the same story as one that does.
final class BigInputTests: XCTestCase {
    // MARK: The byte lexer

    /// What `ByteLexer` makes of a line, in `LineLexer`'s terms; nil when it leaves the line to `LineLexer`.
    private func byteWords(_ line: String) -> Result<(words: [String], code: String), Problem>? {
        var lexer = ByteLexer()
        var line = line
        return line.withUTF8 { bytes in
            switch lexer.lex(bytes) {
            case .notASCII: return nil
            case .unterminatedQuote: return .failure(Problem("unterminated quote, expected a closing \""))
            case .words:
                return .success(
                    (lexer.words(), String(decoding: UnsafeBufferPointer(rebasing: bytes[lexer.code]), as: UTF8.self)))
            }
        }
    }

    private func assertSameAsLineLexer(_ line: String, file: StaticString = #filePath, lineNo: UInt = #line) {
        let chars = LineLexer.words(line)
        guard let bytes = byteWords(line) else {
            XCTAssertTrue(
                line.utf8.contains { $0 >= 0x80 }, "an ASCII line left to LineLexer: \(line.debugDescription)",
                file: file, line: lineNo)
            return
        }
        switch (chars, bytes) {
        case (.success(let c), .success(let b)):
            XCTAssertEqual(b.words, c.words, line.debugDescription, file: file, line: lineNo)
            XCTAssertEqual(b.code, c.code, line.debugDescription, file: file, line: lineNo)
        case (.failure(let c), .failure(let b)):
            XCTAssertEqual(b, c, line.debugDescription, file: file, line: lineNo)
        default:
            XCTFail("LineLexer \(chars), ByteLexer \(bytes) for \(line.debugDescription)", file: file, line: lineNo)
        }
    }

    func testByteLexerSaysWhatLineLexerSaysOnTrickyLines() {
        for line in [
            "", "   ", "\t", "# only a comment", "at 1ms track a", "  at  1ms\ttrack\ta  ", "at 1ms track a # c \"q",
            "at 1ms track \"two words\" k=\"v w\"", "at 1ms track \"h#sh\"#c", "at 1ms track \"q\\\"x\" \"b\\\\s\"",
            "at 1ms track \"\"", "at 1ms track a\"b c\"d", "at 1ms track \"unterminated", "at 1ms track \"esc at end\\",
            "\rat 1ms launch", "at 1ms launch\r", "at 1ms launch \r\t", "a\\b c", "expect at 1s log \"a # b\"  # c",
            "\"\" \"\"", "x#", "#", "\"#\"",
            // Beyond ASCII: left to LineLexer, whose Characters are grapheme clusters.
            "at 1ms track é", "at 1ms track a \u{301}b", "at 1ms track \"\u{301}x", "at 1ms track a #\u{301} b",
            "at 1ms track a # é", "\u{600} at 1ms launch", "at 1ms track 🙂",
        ] {
            assertSameAsLineLexer(line)
        }
    }

    /// Random lines from an alphabet of the lexer's special bytes, plain
    /// letters and a few characters beyond ASCII that join their neighbours.
    func testByteLexerSaysWhatLineLexerSaysOnRandomLines() {
        let alphabet: [String] = [
            "a", "b", "=", " ", " ", "\t", "\r", "\"", "\"", "\\", "#", "é", "\u{301}", "\u{600}", "1",
        ]
        var rng = SplitMix64(seed: 10)
        var ascii = 0
        for _ in 0..<20_000 {
            var line = ""
            for _ in 0..<Int(rng.next() % 24) {
                // Mostly ASCII, so most lines take the byte path.
                let pick = Int(rng.next() % UInt64(alphabet.count))
                line += pick >= 11 && rng.next() % 4 != 0 ? "x" : alphabet[pick]
            }
            if byteWords(line) != nil { ascii += 1 }
            assertSameAsLineLexer(line)
        }
        XCTAssertGreaterThan(ascii, 5_000, "the byte path was hardly tried")
    }

    // MARK: Parsing

    private func parse(_ text: String) -> Result<Scenario, ScenarioErrors> {
        Scenario.parse(text, file: "inline.outbox")
    }

    /// A space followed by a combining mark is one Character, not a space: the
    /// byte lexer must not split such a line where `LineLexer` does not.
    func testALineBeyondASCIIKeepsLineLexersGraphemes() throws {
        let sc = try parse("profile ios\nat 0 launch\nat 1ms track a \u{301}b\n").get()
        guard case .action(.eventTracked(let e)) = sc.steps[1].content else { return XCTFail("\(sc.steps[1])") }
        XCTAssertEqual(e.name, "a \u{301}b")
        XCTAssertEqual(e.attributes, [])
    }

    /// CRLF line ends: each line ends at its `\n` and the `\r` before it is
    /// space, so the file means what the same with LF means.
    func testCRLFLineEndsReadLikeLF() throws {
        let lf =
            "profile linktrail\nset requireConsent false\nat 0 launch\nat 1s track a k=v\nexpect at 2s state a delivered  # done\nexpect at 2s log \"app launched\"\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let a = try parse(lf).get(), b = try parse(crlf).get()
        XCTAssertEqual(b.steps.map(\.line), a.steps.map(\.line))
        XCTAssertEqual(b.steps.map(\.text), a.steps.map(\.text))
        XCTAssertEqual(b.steps.map(\.text).last, "expect at 2s log \"app launched\"")
        var ra = ScenarioRunner(a), rb = ScenarioRunner(b)
        XCTAssertEqual(runTimeline(&rb, format: .jsonl), runTimeline(&ra, format: .jsonl))
        XCTAssertEqual(rb.failures.count, 0)
    }

    /// Lines saying the same after their time are one action in the table; an
    /// event differing only in its value shares the attribute list of the others.
    func testRepeatedLinesShareOneActionAndEqualListsOneBuffer() throws {
        var text = "profile linktrail\nset requireConsent false\nat 0 launch\n"
        for i in 1...1_000 { text += "at \(i)ms track \"a rather long event name\" value=1.5 k=v j=w\n" }
        for i in 1...10 { text += "at \(1000 + i)ms   track \"a rather long event name\" value=\(i) k=v j=w\n" }
        let sc = try parse(text).get()
        XCTAssertEqual(sc.steps.count, 1_011)
        // launch, the 1,000 equal lines, and ten that differ in their value.
        XCTAssertEqual(sc.steps.actions.count, 12)
        let events = sc.steps.actions.compactMap { a -> TrackedEvent? in
            if case .eventTracked(let e) = a { return e }
            return nil
        }
        XCTAssertEqual(events.count, 11)
        let buffers = Set(events.map { $0.attributes.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } })
        XCTAssertEqual(buffers.count, 1, "one attribute list, shared")
        XCTAssertEqual(events[3].attributes, [Attribute(key: "k", value: "v"), Attribute(key: "j", value: "w")])
        XCTAssertEqual(events[3].value, Amount(micros: 3_000_000))
    }

    /// Steps run by time, then file order, whichever path read their lines.
    func testStepsAreInTimeThenFileOrder() throws {
        let sc = try parse(
            """
            profile ios
            at 0 launch
            at 3ms track c
            at 1ms track é
            expect at 1ms received é 0
            at 1ms track a
            at 2ms track b
            at 1ms screen s
            """
        ).get()
        XCTAssertEqual(sc.steps.map(\.line), [2, 4, 5, 6, 8, 7, 3])
        XCTAssertEqual(sc.steps.map(\.time), [0, 1, 1, 1, 1, 2, 3])
        XCTAssertEqual(sc.steps[2].text, "expect at 1ms received é 0")
        XCTAssertEqual(sc.steps[1].text, "", "action lines keep no text")
    }

    /// An action with the app closed is named by its line as written, read
    /// again from the file (action lines keep no text), on either lexer's path.
    func testAnActionWithTheAppClosedIsNamedAsWritten() {
        guard
            case .failure(let e) = parse(
                """
                profile ios
                # the app is never launched
                at 1ms   track  "a b" k=v   # a comment
                at 2ms track é
                at 1ms screen home
                """)
        else { return XCTFail("parsed") }
        XCTAssertEqual(
            e.errors.map(\.description),
            [
                "inline.outbox:3: `track \"a b\" k=v` needs a running app, expected `at <time> launch` before it",
                "inline.outbox:4: `track é` needs a running app, expected `at <time> launch` before it",
                "inline.outbox:5: `screen home` needs a running app, expected `at <time> launch` before it",
            ])
    }

    /// A bad line among many is reported with its own line and message, and a
    /// line equal to an earlier good one after its time parses as that one did.
    func testBadLinesAmongRepeatedOnesAreReportedOnTheirLines() {
        var text = "profile ios\nat 0 launch\n"
        for i in 1...100 { text += "at \(i)ms track ev\n" }
        text += "at 101ms track ev =v\nat 102ms track ev\nexpect at 103ms counted ev x\n"
        guard case .failure(let e) = parse(text) else { return XCTFail("parsed") }
        XCTAssertEqual(
            e.errors.map(\.description),
            [
                "inline.outbox:103: bad event attribute `=v`, expected `<key>=<value>`",
                "inline.outbox:105: bad count `x`, expected a whole number ≥ 0",
            ])
    }

    // MARK: Running without keeping the journal

    /// Scenarios with passing and failing `expect log` lines, the same text
    /// checked again later, and a text that turns up only later.
    static let logScenario = """
        profile linktrail
        set requireConsent false
        expect at 0 log "app"
        at 0 launch
        expect at 0 log "app launched"
        expect at 0 log "nothing here"
        at 5ms network offline
        at 5ms track a k=v
        expect at 1ms log "network offline"
        expect at 5ms log "network offline"
        at 6ms network online
        at 6ms server 503 x2
        at 7ms quit
        at 8ms launch
        expect at 10s log "network offline"
        expect at 10s log "nothing here"
        expect at 10s log "app closed"
        expect at 10s state a delivered
        """

    private func play(_ sc: Scenario, _ use: ScenarioRunner.JournalUse) -> (ScenarioRunner, [String], maxJournal: Int) {
        var runner = ScenarioRunner(sc, journal: use)
        var out: [String] = []
        var maxJournal = 0
        let w = TimelineWriter(format: .jsonl)
        runner.run { item, sim in
            maxJournal = max(maxJournal, sim.journal.count)
            switch item {
            case .entry(let e): out.append(w.line(e, in: sim))
            case .check(let r): out.append(w.check(r))
            }
        }
        return (runner, out, maxJournal)
    }

    func testStreamedAndChecksOnlyRunsTellWhatAKeptRunTells() throws {
        var files = ExamplesTests.examples.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
        files.append(Self.logScenario)
        for text in files {
            let sc = try parse(text).get()
            let (kept, keptLines, _) = play(sc, .kept)
            let (streamed, streamedLines, _) = play(sc, .streamed)
            let (quiet, quietLines, _) = play(sc, .checksOnly)
            XCTAssertEqual(streamedLines, keptLines)
            XCTAssertEqual(
                quietLines, keptLines.filter { $0.contains("\"expect\":") }, "checksOnly emits the checks only")
            for r in [streamed, quiet] {
                XCTAssertEqual(r.checkCount, kept.checkCount)
                XCTAssertEqual(r.failures.map(\.line), kept.failures.map(\.line))
                XCTAssertEqual(r.failures.map(\.found), kept.failures.map(\.found))
                XCTAssertEqual(r.results.count, r.failures.count, "only failures are kept")
                XCTAssertEqual(r.sim.transitionCount, kept.sim.transitionCount)
                XCTAssertEqual(r.sim.now, kept.sim.now)
                XCTAssertEqual(r.sim.journal.count, 0, "nothing left in the journal")
            }
            XCTAssertEqual(kept.results.count, kept.checkCount)
        }
        let sc = try parse(Self.logScenario).get()
        let (kept, _, _) = play(sc, .kept)
        XCTAssertEqual(kept.failures.map(\.line), [6, 9, 16, 18])
        XCTAssertEqual(kept.failures.first?.found, "no log line contains \"nothing here\"")
    }

    /// A long run keeps one instant's entries at a time, not the run's.
    func testAStreamedRunsJournalStaysSmall() throws {
        let sc = try parse(BenchBigInputs.text(.tracks, lines: 3_000)).get()
        let (kept, keptLines, keptMax) = play(sc, .kept)
        let (streamed, streamedLines, streamedMax) = play(sc, .streamed)
        XCTAssertEqual(streamedLines, keptLines)
        XCTAssertEqual(kept.sim.journal.count, keptMax)
        XCTAssertGreaterThan(keptMax, 9_000)
        XCTAssertLessThan(streamedMax, 20)
        XCTAssertEqual(streamed.sim.journalStart, kept.sim.journal.count)
    }

    /// `run -q` without `expect log` lines builds no journal at all.
    func testChecksOnlyWithoutLogChecksKeepsNoJournal() throws {
        let sc = try parse("profile ios\nat 0 launch\nat 1ms track a\nexpect at 1s state a delivered\n").get()
        let (quiet, lines, maxJournal) = play(sc, .checksOnly)
        XCTAssertFalse(quiet.sim.keepsJournal)
        XCTAssertEqual(maxJournal, 0)
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(quiet.failures.count, 0)
        XCTAssertEqual(quiet.sim.transitionCount, 3)
        XCTAssertTrue(
            try parse(Self.logScenario).map { ScenarioRunner($0, journal: .checksOnly).sim.keepsJournal }.get())
    }

    /// After the journal is forgotten, a request's history holds what came after.
    func testHistoryAfterTheJournalIsForgotten() {
        var settings = Settings(profile: .ios)
        _ = settings.set("latency", "100ms", profile: .ios)
        var sim = Simulation(profile: .ios, settings: settings)
        sim.apply(.appLaunched)
        sim.apply(.eventTracked(TrackedEvent(name: "a")))
        let id = sim.requests(named: "a")[0]
        sim.advance(to: 20)
        XCTAssertEqual(sim.history(of: id).map(\.to), [.pending, .inFlight])
        sim.forgetJournal()
        XCTAssertEqual(sim.history(of: id).count, 0)
        sim.advance(to: 200)
        XCTAssertEqual(sim.history(of: id).map(\.to), [.delivered])
        XCTAssertEqual(sim.history(of: id).first?.from, .inFlight)
    }

    // MARK: The model's side tables

    /// Names chained by id give each name's requests oldest first; revenue and
    /// attributes are found for the requests that have them and no others.
    func testRequestsByNameAndExtrasInterleaved() {
        var settings = Settings(profile: .linktrail)
        _ = settings.set("requireConsent", "false", profile: .linktrail)
        var sim = Simulation(profile: .linktrail, settings: settings)
        sim.apply(.appLaunched)
        for i in 0..<30 {
            let name = ["x", "y", "z"][i % 3]
            var e = TrackedEvent(name: name)
            if i % 2 == 0 { e.value = Amount(micros: Int64(i)); e.currency = "EUR" }
            if i % 5 == 0 { e.attributes = [Attribute(key: "i", value: String(i))] }
            sim.apply(.eventTracked(e))
        }
        // Id 1 is the install.
        XCTAssertEqual(sim.requests(named: "install"), [1])
        XCTAssertEqual(sim.requests(named: "y"), stride(from: 3, through: 30, by: 3).map { Int32($0) })
        XCTAssertEqual(sim.requests(named: "nobody"), [])
        for i in 0..<30 {
            let id = Int32(i + 2)
            XCTAssertEqual(sim.value(of: id)?.amount, i % 2 == 0 ? Amount(micros: Int64(i)) : nil)
            XCTAssertEqual(sim.value(of: id)?.currency, i % 2 == 0 ? "EUR" : nil)
            XCTAssertEqual(sim.attributes(of: id), i % 5 == 0 ? [Attribute(key: "i", value: String(i))] : [])
            XCTAssertEqual(sim.savedRecord(id).attributes, sim.attributes(of: id))
        }
        XCTAssertEqual(sim.attributes(of: 1), [])
    }

    /// Forgetting the oldest requests while later ones stay (a fleet device's
    /// backlog): each name's chain starts at its first later id, a name whose
    /// requests all went has none, the extras of later ones are still found,
    /// and later requests chain on as before.
    func testRequestsByNameAndExtras_forgetAPrefix() {
        var byName = RequestsByName(), extras = RequestExtras()
        for id in Int32(1)...20 {
            byName.add(id, name: id <= 4 ? 3 : id % 2)  // name 3: ids 1-4 only
            extras.add(id, revenue: nil, attributes: id % 3 == 0 ? [Attribute(key: "n", value: String(id))] : [])
        }
        byName.forget(through: 9)
        extras.forget(through: 9)
        XCTAssertEqual(byName.ids(0), [10, 12, 14, 16, 18, 20])
        XCTAssertEqual(byName.ids(1), [11, 13, 15, 17, 19])
        XCTAssertEqual(byName.ids(3), [])
        XCTAssertEqual(extras.attributes(12), [Attribute(key: "n", value: "12")])
        XCTAssertEqual(extras.attributes(13), [])
        byName.add(21, name: 3)
        byName.add(22, name: 0)
        extras.add(21, revenue: nil, attributes: [Attribute(key: "n", value: "21")])
        XCTAssertEqual(byName.ids(3), [21])
        XCTAssertEqual(byName.ids(0), [10, 12, 14, 16, 18, 20, 22])
        XCTAssertEqual(extras.attributes(21), [Attribute(key: "n", value: "21")])
        var states = ForgettingArray<Int>()
        states.append(contentsOf: 0..<10)
        states.forget(upTo: 4)
        XCTAssertEqual(states.indices, 4..<10)
        XCTAssertEqual(states[4], 4)
        states.forget(upTo: 12)
        XCTAssertEqual(states.indices, 12..<12)
    }

    // MARK: The bench's files and the command line

    /// Every shape `outbox bench --only lines` writes is a scenario that parses
    /// and whose checks pass, so the bench measures runs that did their work.
    func testTheBenchsShapesParseAndPass() throws {
        for shape in BenchBigInputs.Shape.allCases {
            let text = BenchBigInputs.text(shape, lines: 2_000)
            XCTAssertEqual(text.split(separator: "\n", omittingEmptySubsequences: false).count, 2_004, shape.rawValue)
            let sc = try parse(text).get()
            var runner = ScenarioRunner(sc, journal: .checksOnly)
            runner.run()
            XCTAssertEqual(runner.failures.count, 0, shape.rawValue)
            XCTAssertEqual(runner.checkCount, shape == .expects ? 1_000 : 0, shape.rawValue)
        }
    }

    func testRunQuietOnAManyLineFilePassesAndSaysSo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "outbox-big-\(UUID().uuidString).outbox"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try BenchBigInputs.text(.expects, lines: 20_000).write(toFile: path, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["run", "-q", path])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, "\(path): 10000 passed, 0 failed · 30003 transitions · ended at 00:00:20.199\n")
    }

    func testBenchLinesFigureNamesEveryShape() {
        let (status, out, err) = cli(["bench", "--quick", "--json", "--only", "lines"])
        XCTAssertEqual(status, 0, err)
        let figures = out.split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertEqual(figures.count, 5, out)
        for (line, shape) in zip(figures, BenchBigInputs.Shape.allCases) {
            XCTAssertTrue(
                line.hasPrefix("{\"figure\":\"scenario_lines_\(shape.rawValue)\",\"lines\":10000,"), String(line))
            XCTAssertTrue(line.contains("\"parse_s\":") && line.contains("\"read_and_split_s\":"), String(line))
        }
    }
}
