import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// `outbox compare` as a user sees it: whole outputs at 80 and 160 columns and
/// in JSONL, `expect on` in `run` and `compare`, skips, exit statuses and errors.
final class CompareTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-compare-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Writes a scenario file; returns its path.
    private func write(_ text: String, _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `outbox` in the temporary directory, files named by their names
    /// alone (as a user in that directory would), so lines do not depend on where it is.
    private func run(_ args: [String]) -> (Int32, String, String) {
        let fm = FileManager.default
        let back = fm.currentDirectoryPath
        fm.changeCurrentDirectoryPath(dir.path)
        defer { fm.changeCurrentDirectoryPath(back) }
        let d = dir.path + "/"
        return cli(args.map { $0.hasPrefix(d) ? String($0.dropFirst(d.count)) : $0 })
    }

    /// A 403, a 503 twice, then offline: iOS, Android and Flutter part three ways.
    static let story = #"""
        # A purchase answered 403, then a 503 twice, then offline.
        profile ios
        compare ios,android,flutter
        set retry.delays 2s
        at 0 launch
        at 0 getinstance
        at 100ms server 403
        at 100ms track purchase
        at 1s server 503 x2
        at 1s ping
        at 5s network offline
        at 5s screen home
        at 8s network online
        expect at 1s dropped purchase rejected
        expect on android at 1s state purchase queued
        expect on android,flutter at 30s state ping dropped
        """#

    func testTextAt80ColumnsAbbreviatesAndFitsThreeProfiles() throws {
        let path = try write(Self.story, "story.outbox")
        let (status, out, err) = run(["compare", path, "--width", "80"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(err, "")
        XCTAssertEqual(
            out,
            #"""
            == story.outbox: ios, android, flutter
            skipped story.outbox:4 `set retry.delays 2s` on android, flutter:
              setting 'retry.delays' exists only on profiles that retry
            skipped story.outbox:6 `at 0 getinstance` on ios, flutter:
              the profile has no getInstance() call (getinstance)
              request   ios              android        flutter
            ! purchase  rejected  1 - F  queued    1 S  rejected  1 -
                first differs at 00:00:00.300:
                  ios      in-flight → dropped     attempt 1  403 rejected       IOS-3
                  android  in-flight → queued      attempt 1  403                AND-4
                  flutter  in-flight → dropped     attempt 1  403 rejected       FL-3
            ! ping      delivered 3 - T  not-saved 1 -  not-saved 1 -
                first differs at 00:00:01.200:
                  ios      in-flight → retrying    attempt 1  503                IOS-4
                  android  in-flight → dropped     attempt 1  503 not-saved      AND-2
                  flutter  in-flight → dropped     attempt 1  503 not-saved      FL-3
            ! home      delivered 1 - T  queued    1 S  queued    1 S
                first differs at 00:00:05.000:
                  ios      new → queued                                          IOS-5
                  android  new → pending                                         AND-1
                  flutter  new → pending                                         FL-1
            cells: state or drop reason, attempts, S saved, iOS completion T true F false;
                   - where it is not saved, or no completion was called
            ios      2 deliv 1 drop · 5 att · 5 rcvd 2 cntd · 1/1 checks · end 00:00:08.200
            android  2 queue 1 drop · 3 att · 2 rcvd 0 cntd · 2/2 checks · end 00:00:30.000
            flutter  1 queue 2 drop · 3 att · 2 rcvd 0 cntd · 1/1 checks · end 00:00:30.000
            """# + "\n")
        for line in out.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    func testTextAt160ColumnsUsesFullWords() throws {
        let path = try write(Self.story, "story.outbox")
        let (status, out, err) = run(["compare", path, "--width", "160"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            out,
            #"""
            == story.outbox: ios, android, flutter
            skipped story.outbox:4 `set retry.delays 2s` on android, flutter: setting 'retry.delays' exists only on profiles that retry
            skipped story.outbox:6 `at 0 getinstance` on ios, flutter: the profile has no getInstance() call (getinstance)
              request   ios                                              android                               flutter
            ! purchase  dropped: rejected  1 attempt   completion false  queued              1 attempt  saved  dropped: rejected   1 attempt
                first differs at 00:00:00.300:
                  ios      in-flight → dropped     attempt 1  403 rejected       IOS-3
                  android  in-flight → queued      attempt 1  403                AND-4
                  flutter  in-flight → dropped     attempt 1  403 rejected       FL-3
            ! ping      delivered          3 attempts  completion true   dropped: not-saved  1 attempt         dropped: not-saved  1 attempt
                first differs at 00:00:01.200:
                  ios      in-flight → retrying    attempt 1  503                IOS-4
                  android  in-flight → dropped     attempt 1  503 not-saved      AND-2
                  flutter  in-flight → dropped     attempt 1  503 not-saved      FL-3
            ! home      delivered          1 attempt   completion true   queued              1 attempt  saved  queued              1 attempt  saved
                first differs at 00:00:05.000:
                  ios      new → queued                                          IOS-5
                  android  new → pending                                         AND-1
                  flutter  new → pending                                         FL-1
            ios      3 requests: 2 delivered, 1 dropped · 5 attempts · 5 received, 2 counted · checks: 1 passed, 0 failed · ended at 00:00:08.200
            android  3 requests: 2 queued, 1 dropped · 3 attempts · 2 received, 0 counted · checks: 2 passed, 0 failed · ended at 00:00:30.000
            flutter  3 requests: 1 queued, 2 dropped · 3 attempts · 2 received, 0 counted · checks: 1 passed, 0 failed · ended at 00:00:30.000
            """# + "\n")
        for line in out.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 160, String(line)) }
    }

    /// Without --width and with no terminal, COLUMNS is not read by the test's
    /// process here; the width falls back to 80 or COLUMNS: either way three
    /// profiles' lines fit in it.
    func testDefaultWidthFitsTheTerminalOrEighty() throws {
        let path = try write(Self.story, "story.outbox")
        let (status, out, _) = run(["compare", path])
        XCTAssertEqual(status, 0)
        let columns =
            ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 >= 20 ? $0 : nil } ?? 80
        for line in out.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, max(columns, 80), String(line)) }
    }

    static let small = #"""
        profile android
        at 0 launch
        at 0 getinstance
        at 100ms server 403
        at 100ms track purchase
        expect on android at 1s state purchase queued
        expect on ios at 1s dropped purchase rejected
        """#

    func testJSONLIsRunsLinesWithProfileThenSkippedAndDiverged() throws {
        let path = try write(Self.small, "small.outbox")
        let (status, out, err) = run(["compare", path, "--profiles", "ios,android", "--format", "jsonl"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            out,
            #"""
            {"skipped":{"file":"small.outbox","line":3,"text":"at 0 getinstance","profiles":["ios"],"reason":"the profile has no getInstance() call (getinstance)"}}
            {"t":0,"profile":"ios","log":"app launched (launch 1)","source":"outbox"}
            {"t":0.1,"profile":"ios","log":"backend will answer: 403 ×1","source":"outbox","rule":"ANS"}
            {"t":0.1,"profile":"ios","id":1,"name":"purchase","kind":"event","from":"new","to":"pending","attempt":0,"rule":"IOS-1"}
            {"t":0.1,"profile":"ios","id":1,"name":"purchase","kind":"event","from":"pending","to":"in-flight","attempt":1,"rule":"IOS-2"}
            {"t":0.3,"profile":"ios","id":1,"name":"purchase","kind":"event","from":"in-flight","to":"dropped","attempt":1,"rule":"IOS-3","status":403,"reason":"rejected"}
            {"t":0.3,"profile":"ios","log":"completion(#1 'purchase'): false (rejected 403)","source":"completion","id":1,"rule":"IOS-3"}
            {"t":1,"profile":"ios","expect":"expect on ios at 1s dropped purchase rejected","ok":true,"line":7}
            {"t":0,"profile":"android","log":"app launched (launch 1)","source":"outbox"}
            {"t":0,"profile":"android","log":"UserCom.getInstance() (launch): resending 0 saved","source":"sdk","rule":"AND-3"}
            {"t":0,"profile":"android","log":"UserCom.getInstance() (call): resending 0 saved","source":"sdk","rule":"AND-3"}
            {"t":0.1,"profile":"android","log":"backend will answer: 403 ×1","source":"outbox","rule":"ANS"}
            {"t":0.1,"profile":"android","id":1,"name":"purchase","kind":"event","from":"new","to":"pending","attempt":0,"rule":"AND-1"}
            {"t":0.1,"profile":"android","id":1,"name":"purchase","kind":"event","from":"pending","to":"in-flight","attempt":1,"rule":"AND-1"}
            {"t":0.3,"profile":"android","id":1,"name":"purchase","kind":"event","from":"in-flight","to":"queued","attempt":1,"rule":"AND-4","status":403}
            {"t":1,"profile":"android","expect":"expect on android at 1s state purchase queued","ok":true,"line":6}
            {"diverged":{"file":"small.outbox","name":"purchase","occurrence":1,"at":0.3,"ios":{"id":1,"state":"dropped","reason":"rejected","attempts":1,"saved":false,"completion":"false","rule":"IOS-3"},"android":{"id":1,"state":"queued","attempts":1,"saved":true,"rule":"AND-4"}}}
            """# + "\n")
        XCTAssertEqual(
            err,
            #"""
            ios      1 request: 1 dropped · 1 attempt · 1 received, 0 counted · checks: 1 passed, 0 failed · ended at 00:00:01.000
            android  1 request: 1 queued · 1 attempt · 1 received, 0 counted · checks: 1 passed, 0 failed · ended at 00:00:01.000
            """# + "\n")
        // Every line is one JSON object; jq-style questions have answers.
        for line in out.split(separator: "\n") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
    }

    // MARK: `expect on` and `compare` in `outbox run`

    /// `outbox run` checks plain expects and `expect on` lines naming the file's
    /// profile; the others are read (a bad one is bad input) but not checked.
    func testRunChecksOnlyTheExpectsForItsProfile() throws {
        let path = try write(
            """
            profile android
            compare ios,android
            at 0 launch
            at 100ms server 403
            at 100ms track purchase
            expect at 1s state purchase queued
            expect on android,flutter at 1s saved 1
            expect on ios at 1s dropped purchase rejected
            """, "a.outbox")
        let (status, out, err) = run(["run", path])
        XCTAssertEqual(status, 0, err)
        let checks = out.split(separator: "\n").filter { $0.contains("expect  ") }.map {
            String($0.drop { $0 != "e" })
        }
        XCTAssertEqual(
            checks,
            ["expect    expect at 1s state purchase queued  ✓", "expect    expect on android,flutter at 1s saved 1  ✓"])
        XCTAssertTrue(out.hasSuffix("a.outbox: 2 passed, 0 failed · 3 transitions · ended at 00:00:01.000\n"), out)
    }

    func testBadProfileNamesAreBadInputNamingFileAndLine() throws {
        let cases: [(String, String)] = [
            (
                "expect on ios,iphone at 1s saved 0",
                "x.outbox:3: bad expect on line: unknown profile `iphone`, expected linktrail, ios, android, flutter or " + ProfileResolver.realSDKs + ", or a profile file (a path ending .profile)"
            ),
            ("expect on ios,ios at 1s saved 0", "x.outbox:3: bad expect on line: profile `ios` named twice"),
            ("expect on at 1s saved 0", "x.outbox:3: bad expect line, expected `expect on P[,P...] at <time> <check>`"),
            (
                "compare ios,windows",
                "x.outbox:3: `compare` after the first `at` line, expected it after `profile` and before the first `at`"
            ),
        ]
        for (line, message) in cases {
            let path = try write("profile ios\nat 0 launch\n\(line)\n", "x.outbox")
            for command in ["run", "compare"] {
                let (status, out, err) = run([command, path])
                XCTAssertEqual(status, 2, "\(command): \(line)")
                XCTAssertEqual(out, "", "\(command): nothing runs")
                XCTAssertEqual(err, message + "\n", "\(command): \(line)")
            }
        }
        let path = try write("profile ios\ncompare ios,windows\ncompare ios\nat 0 launch\n", "y.outbox")
        let (status, _, err) = run(["run", path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(
            err,
            """
            y.outbox:2: bad compare line: unknown profile `windows`, expected linktrail, ios, android, flutter or \(ProfileResolver.realSDKs), or a profile file (a path ending .profile)
            y.outbox:3: a second compare line, expected one `compare` line per scenario

            """)
    }

    func testUnknownProfileInOptionExitsTwoAndRunsNothing() throws {
        let path = try write(Self.small, "small.outbox")
        let (status, out, err) = run(["compare", path, "--profiles", "ios,blackberry"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err,
            "outbox compare: --profiles: unknown profile `blackberry`, expected linktrail, ios, android, flutter or " + ProfileResolver.realSDKs + ", or a profile file (a path ending .profile)\n")
        XCTAssertEqual(run(["compare", path, "--width", "5"]).0, 2)
        XCTAssertEqual(run(["compare", path, "--format", "xml"]).0, 2)
        XCTAssertEqual(run(["compare", path, "--bogus"]).0, 2)
        XCTAssertEqual(run(["compare"]).2.split(separator: "\n").first, "outbox compare: no scenario file given")
    }

    /// `outbox run` keeps its errors for actions and settings the profile lacks;
    /// `compare` skips those lines on that profile, and still refuses bad values.
    func testRunRefusesWhatCompareSkips() throws {
        let text = """
            profile flutter
            set retry.attempts 2
            at 0 launch
            at 1s consent grant
            at 2s set retry.delays 1s
            """
        let path = try write(text, "f.outbox")
        let (rs, _, rerr) = run(["run", path])
        XCTAssertEqual(rs, 2)
        XCTAssertEqual(
            rerr.split(separator: "\n").map { String($0.prefix(40)) },
            [
                "f.outbox:2: setting `retry.attempts` doe", "f.outbox:4: Positive User (UserCom) SDK ",
                "f.outbox:5: setting `retry.delays` does ",
            ])
        let (cs, out, cerr) = run(["compare", path, "--profiles", "linktrail,flutter", "--width", "160"])
        XCTAssertEqual(cs, 0, cerr)
        XCTAssertEqual(
            Array(out.split(separator: "\n").prefix(4)),
            [
                "== f.outbox: linktrail, flutter",
                "skipped f.outbox:2 `set retry.attempts 2` on flutter: setting 'retry.attempts' exists only on profiles that retry",
                "skipped f.outbox:4 `at 1s consent grant` on flutter: the profile has no consent gate",
                "skipped f.outbox:5 `at 2s set retry.delays 1s` on flutter: setting 'retry.delays' exists only on profiles that retry",
            ])
        let bad = try write("profile flutter\nset retry.attempts many\nat 0 launch\n", "g.outbox")
        let (bs, _, berr) = run(["compare", bad])
        XCTAssertEqual(bs, 2)
        XCTAssertEqual(
            berr, "g.outbox:2: bad value `many` for retry.attempts, expected a whole number from 1 to 1000\n")
    }

    /// The file's `compare` line chooses the profiles; --profiles overrides it.
    func testProfilesComeFromTheOptionThenTheCompareLineThenTheDefault() throws {
        let withLine = try write("profile ios\ncompare flutter,linktrail\nat 0 launch\n", "c.outbox")
        let without = try write("profile ios\nat 0 launch\n", "d.outbox")
        XCTAssertEqual(run(["compare", withLine]).1.split(separator: "\n").first, "== c.outbox: flutter, linktrail")
        XCTAssertEqual(
            run(["compare", withLine, "--profiles", "android"]).1.split(separator: "\n").first, "== c.outbox: android")
        XCTAssertEqual(run(["compare", without]).1.split(separator: "\n").first, "== d.outbox: ios, android, flutter")
    }

    /// A failed check exits 1, named with its file, line and profile; a bad file
    /// among good ones stops everything.
    func testFailedCheckNamesTheProfileAndBadInputAnywhereRunsNothing() throws {
        let path = try write(
            """
            profile ios
            at 0 launch
            at 100ms server 403
            at 100ms track purchase
            expect on ios,android,flutter at 1s dropped purchase rejected
            """, "e.outbox")
        let (status, out, err) = run(["compare", path, "--quiet", "--width", "80"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            err,
            "e.outbox:5: check failed on android: expect on ios,android,flutter at 1s dropped purchase rejected: found #1 is queued\n"
        )
        // Quiet: no table, and (one file) no heading.
        XCTAssertEqual(
            out,
            """
            ios      1 dropped · 1 att · 1 rcvd 0 cntd · 1/1 checks · end 00:00:01.000
            android  1 queued · 1 att · 1 rcvd 0 cntd · 0/1 checks · end 00:00:01.000
            flutter  1 dropped · 1 att · 1 rcvd 0 cntd · 1/1 checks · end 00:00:01.000

            """)
        let broken = try write("profile ios\nat 0 launch\nat 1s fly\n", "z.outbox")
        let (bs, bout, berr) = run(["compare", path, broken])
        XCTAssertEqual(bs, 2)
        XCTAssertEqual(bout, "")
        XCTAssertTrue(berr.hasPrefix("z.outbox:3: unknown action `fly`"), berr)
    }

    func testHelpCompare() {
        let (status, out, _) = run(["help", "compare"])
        XCTAssertEqual(status, 0)
        // swift-argument-parser's layout since issue 14: OVERVIEW, the text, then USAGE.
        XCTAssertTrue(out.contains("\nUSAGE: outbox compare FILE... [--profiles P,P,...]"), out)
        XCTAssertEqual(run(["compare", "--help"]).1, out)
        XCTAssertTrue(CLI.usage.contains("outbox compare FILE..."))
    }

    /// The record of transitions reads back what was written, for the requests asked.
    func testTransitionLogReadsBackTheRequestsAsked() throws {
        let sc = try Scenario.parse(Self.small, file: "s", playing: .ios).get()
        var runner = ScenarioRunner(sc, journal: .kept)
        runner.run()
        var log = TransitionLog()
        var all: [Transition] = []
        for e in runner.sim.journal { if case .transition(let t) = e { log.append(t); all.append(t) } }
        XCTAssertEqual(log.count, all.count)
        let got = log.steps(of: [1])[1] ?? []
        XCTAssertEqual(
            got.map { $0.text(on: .ios) },
            runner.sim.history(of: 1).map {
                CompareStep(
                    time: $0.time, from: $0.from, to: $0.to, attempt: $0.attempt, outcome: $0.outcome,
                    reason: $0.reason, rule: $0.rule
                ).text(on: .ios)
            })
        XCTAssertEqual(got.map(\.time), [100, 100, 300])
        XCTAssertEqual(
            got.map { $0.text(on: .ios) },
            [
                "new → pending IOS-1", "pending → in-flight attempt 1 IOS-2",
                "in-flight → dropped attempt 1 403 rejected IOS-3",
            ])
        XCTAssertTrue(log.steps(of: [2]).isEmpty)
    }

    /// docs/scenarios.md's Compare example prints what the page shows.
    func testTheDocsExampleIsWhatCompareShows() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/scenarios.md", encoding: .utf8)
        let story = try XCTUnwrap(doc.range(of: "# The same 403 and 503, three ways.\n"))
        let storyEnd = try XCTUnwrap(doc.range(of: "```", range: story.lowerBound..<doc.endIndex))
        let shown = try XCTUnwrap(doc.range(of: "$ outbox compare story.outbox\n"))
        let shownEnd = try XCTUnwrap(doc.range(of: "```", range: shown.upperBound..<doc.endIndex))
        let path = try write(String(doc[story.lowerBound..<storyEnd.lowerBound]), "story.outbox")
        let (status, out, err) = run(["compare", path, "--width", "80"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, String(doc[shown.upperBound..<shownEnd.lowerBound]))
    }

    /// Names are escaped, cut to the column with `…`, and a second request of a
    /// name keeps its `(2)` when cut; LinkTrail's install is a row no other profile has.
    func testNamesAreEscapedCutAndNumbered() throws {
        let path = try write(
            """
            profile linktrail
            set requireConsent false
            at 0 launch
            at 1s track a_very_long_event_name_that_goes_on_and_on_forever
            at 2s track "tab\\there"
            at 3s track a_very_long_event_name_that_goes_on_and_on_forever
            """, "long.outbox")
        let (status, out, err) = run(["compare", path, "--profiles", "linktrail,ios,android,flutter", "--width", "80"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            out,
            """
            == long.outbox: linktrail, ios, android, flutter
            skipped long.outbox:2 `set requireConsent false` on ios, android, flutter:
              setting 'requireConsent' exists only on profiles with the consent gate
              request           linktrail      ios              android        flutter
            ! install           delivered 1 -  (not made)       (not made)     (not made)
                first differs at 00:00:00.000:
                  linktrail  new → pending                                         LT-3
                  ios        never made this request
                  android    never made this request
                  flutter    never made this request
              a_very_long_eve…  delivered 1 -  delivered 1 - T  delivered 1 -  delivered 1 -
              tab\\there         delivered 1 -  delivered 1 - T  delivered 1 -  delivered 1 -
              a_very_long… (2)  delivered 1 -  delivered 1 - T  delivered 1 -  delivered 1 -
            cells: state or drop reason, attempts, S saved, iOS completion T true F false;
                   - where it is not saved, or no completion was called
            linktrail  4 delivered · 4 att · 4 rcvd 4 cntd · 0/0 checks · end 00:00:03.200
            ios        3 delivered · 3 att · 3 rcvd 3 cntd · 0/0 checks · end 00:00:03.200
            android    3 delivered · 3 att · 3 rcvd 3 cntd · 0/0 checks · end 00:00:03.200
            flutter    3 delivered · 3 att · 3 rcvd 3 cntd · 0/0 checks · end 00:00:03.200

            """)
    }

    /// Where sequences part: the first place not the same on all (the rule never
    /// counts), a story that ended early, a request never made; none when equal.
    func testDivergenceFindsTheFirstPlaceTheStoriesPart() {
        func step(_ t: Millis, _ from: RequestState?, _ to: RequestState, _ rule: RuleID) -> CompareStep {
            CompareStep(time: t, from: from, to: to, attempt: 0, outcome: .none, reason: nil, rule: rule)
        }
        let a = [step(0, nil, .pending, .ios1), step(5, .pending, .queued, .ios5)]
        let b = [step(0, nil, .pending, .and1), step(5, .pending, .queued, .and5)]
        XCTAssertNil(Divergence.find([a, b]), "only the rules differ")
        let c = [step(0, nil, .pending, .fl1)]
        let d = Divergence.find([a, c])
        XCTAssertEqual(d?.index, 1)
        XCTAssertEqual(d?.time, 5)
        XCTAssertEqual(d?.steps.map { $0?.rule }, [.ios5, nil])
        let e = [step(0, nil, .pending, .fl1), step(7, .pending, .queued, .fl2)]
        XCTAssertEqual(Divergence.find([a, e])?.time, 5, "the earliest time there")
        let never = Divergence.find([a, nil])
        XCTAssertEqual(never?.index, 0)
        XCTAssertEqual(never?.steps.map { $0?.rule }, [.ios1, nil])
    }

    /// With several files, every line of a run says its file, as `outbox run`'s do; one file's lines stay as they were.
    func testJSONLNamesTheFileOfEachRunWhenThereAreSeveral() throws {
        // Run in the temporary directory: the files are named by their names alone.
        _ = try write(Self.small, "a.outbox")
        _ = try write(Self.small, "b.outbox")
        let (a, b) = ("a.outbox", "b.outbox")
        let (status, out, _) = run(["compare", a, b, "--format", "jsonl", "--profiles", "ios,android"])
        XCTAssertNotEqual(status, 2)
        let runLines = out.split(separator: "\n").filter { $0.hasPrefix("{\"t\":") }
        XCTAssertGreaterThan(runLines.count, 4)
        for l in runLines {
            XCTAssertTrue(l.contains("\"file\":\"\(a)\"") || l.contains("\"file\":\"\(b)\""), String(l))
        }
        let (_, one, _) = run(["compare", a, "--format", "jsonl", "--profiles", "ios,android"])
        XCTAssertFalse(one.contains("\"file\":\"\(a)\",\"profile\""), one)
    }
}
