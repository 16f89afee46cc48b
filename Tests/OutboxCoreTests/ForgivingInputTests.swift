import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// Issue 15, item 3: a mistyped word gets "did you mean …?", the bad word
/// quoted; one bad profile line is one error; an `expect` on a request no line
/// creates is bad input found before anything runs.
final class ForgivingInputTests: XCTestCase {
    /// Every error of a scenario, `FILE:LINE: message` a line.
    func errors(_ text: String, playing: Profile? = nil) -> [String] {
        let r =
            playing.map { Scenario.parse(text, file: "t.outbox", playing: $0) }
            ?? Scenario.parse(text, file: "t.outbox")
        guard case .failure(let e) = r else { return [] }
        return e.errors.map(\.description)
    }

    /// The checks of a scenario that can only fail, as `file:line: why` in line
    /// order: failed checks when played (exit 1), not bad input (issue 22).
    func unmatchable(_ text: String, playing: Profile? = nil) -> [String] {
        let r =
            playing.map { Scenario.parse(text, file: "t.outbox", playing: $0) }
            ?? Scenario.parse(text, file: "t.outbox")
        guard case .success(let s) = r else { return ["bad input"] }
        return s.unmatchable.sorted { $0.key < $1.key }.map { "t.outbox:\($0.key): \($0.value)" }
    }

    /// Every error of a profile file.
    func profileErrors(_ text: String) -> [String] {
        guard case .failure(let e) = Profile.parse(text, file: "p.profile") else { return [] }
        return e.errors.map(\.description)
    }

    // MARK: The distance and its limits

    func testDistanceCountsInsertsDeletesReplacesAndSwaps() {
        XCTAssertEqual(Suggest.distance("trak", "track"), 1)  // an insert
        XCTAssertEqual(Suggest.distance("tracks", "track"), 1)  // a delete
        XCTAssertEqual(Suggest.distance("trask", "track"), 1)  // a replace
        XCTAssertEqual(Suggest.distance("pign", "ping"), 1)  // a swap of neighbours
        XCTAssertEqual(Suggest.distance("kitten", "sitting"), 3)
        XCTAssertEqual(Suggest.distance("Launch", "launch"), 0)  // case is no edit
        XCTAssertEqual(Suggest.distance("", "abc"), 3)
        XCTAssertEqual(Suggest.distance("abcdefgh", "a", limit: 2), 3, "stops past the limit")
        XCTAssertEqual(Suggest.distance("abcdef", "badcfe", limit: 2), 3)
    }

    func testOnlyCloseWordsAreSuggested_theNearestFirst_atMostThree() {
        XCTAssertEqual(Suggest.closest("trak", among: ["launch", "track", "quit"]), ["track"])
        XCTAssertEqual(Suggest.closest("tack", among: ["track"]), ["track"])
        // Three edits is too many; two in a word of two is half its letters: neither is "close".
        XCTAssertEqual(Suggest.closest("tk", among: ["track"]), [])
        XCTAssertEqual(Suggest.closest("qt", among: ["quit"]), [])
        // Only the nearest: one edit beats two.
        XCTAssertEqual(Suggest.closest("seed", among: ["saved", "seed2", "speed"]), ["seed2", "speed"])
        XCTAssertEqual(Suggest.closest("abcd", among: ["abce", "abcf", "abcg", "abch"]), ["abce", "abcf", "abcg"])
        XCTAssertEqual(Suggest.closest("track", among: ["track"]), [], "the word itself is no suggestion")
        XCTAssertEqual(Suggest.closest(String(repeating: "a", count: 100), among: ["a"]), [])
        XCTAssertEqual(Suggest.hint("trak", among: ["track"]), "; did you mean `track`?")
        XCTAssertEqual(Suggest.hint("abcd", among: ["abce", "abcf"]), "; did you mean `abce` or `abcf`?")
        XCTAssertEqual(
            Suggest.hint("abcd", among: ["abce", "abcf", "abcg"]), "; did you mean `abce`, `abcf` or `abcg`?")
        XCTAssertEqual(Suggest.hint("zzzz", among: ["track"]), "")
        XCTAssertEqual(Suggest.status("5O3"), "503")
        XCTAssertEqual(Suggest.status("4l3"), "413")
        XCTAssertNil(Suggest.status("503"))
        XCTAssertNil(Suggest.status("9O9"))
    }

    // MARK: Each word class of a scenario

    func testActionsSettingsAnswersAndTheirWords() {
        let text = """
            profile linktrail
            set retry.attempt 3
            at 0 launch
            at 1s trak purchase
            at 1s server 5O3
            at 1s server tiemout
            at 1s server 503 alwys
            at 1s network ofline
            at 1s consent grnat
            at 2s set latncy 1s
            at 2s set requireConsent ture
            """
        XCTAssertEqual(
            errors(text),
            [
                "t.outbox:2: unknown setting `retry.attempt`, expected one of: requireConsent, retry.attempts, retry.delays, retry.jitter, latency, latency.jitter, timeout, seed; did you mean `retry.attempts`?",
                "t.outbox:4: unknown action `trak`, expected one of: launch, quit, getinstance, consent grant|deny, track, ping, screen, product, notification, logout, network online|offline|flap, server; did you mean `track`?",
                "t.outbox:5: bad server line: unknown answer `5O3`, expected `server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial; did you mean `503`?",
                "t.outbox:6: bad server line: unknown answer `tiemout`, expected `server <answer> [x<N> | always | <N>%] [for <name> | for kind:<kind>]` with ok, a status 100-599, timeout, lost or partial; did you mean `timeout`?",
                "t.outbox:7: bad repeat `alwys`, expected x<N> (N ≥ 1), always or a chance <N>% (e.g. 30%); did you mean `always`?",
                "t.outbox:8: bad network `ofline`, expected `network online`, `network offline` or `network flap <up> <down>`; did you mean `online` or `offline`?",
                "t.outbox:9: bad consent `grnat`, expected `consent grant` or `consent deny`; did you mean `grant`?",
                "t.outbox:10: unknown setting `latncy`, expected one of: requireConsent, retry.attempts, retry.delays, retry.jitter, latency, latency.jitter, timeout, seed; did you mean `latency`?",
                "t.outbox:11: bad value `ture` for requireConsent, expected true or false; did you mean `true`?",
            ])
    }

    func testStatementsStatesChecksReasonsAndCompletions() {
        let text = """
            profile ios
            at 0 launch
            at 1s track purchase
            expct at 2s saved 0
            expect at 2s state purchase deliverd
            expect at 2s dropped purchase rejeted
            expect at 2s atempts purchase 1
            expect at 2s completion purchase flase
            expect at 2s state purchase flying
            """
        XCTAssertEqual(
            errors(text),
            [
                "t.outbox:4: unknown statement `expct`, expected profile, compare, set, saved, device, at or expect; did you mean `expect`?",
                "t.outbox:5: unknown state `deliverd`, expected one of: pending, in-flight, retrying, queued, delivered, dropped; did you mean `delivered`?",
                "t.outbox:6: unknown drop reason `rejeted`, expected one of: consent, rejected, exhausted, not-saved, overflow, expired, rate-limited, retry-budget; did you mean `rejected`?",
                "t.outbox:7: unknown check `atempts`, expected state, dropped, attempts, saved, received, counted, log, completion, revenue or request; did you mean `attempts`?",
                "t.outbox:8: bad completion `flase`, expected true, false or none; did you mean `false`?",
                // Nothing close: the message as it always was.
                "t.outbox:9: unknown state `flying`, expected one of: pending, in-flight, retrying, queued, delivered, dropped",
            ])
        XCTAssertEqual(
            errors("prfile ios\n"),
            [
                "t.outbox:1: `prfile` before the profile, expected `profile linktrail|ios|android|flutter` first; did you mean `profile`?"
            ])
    }

    // MARK: Profiles

    func testABadProfileLineIsOneErrorWithItsSuggestion() {
        let text = """
            profile linktrial
            set retry.attempts 3
            at 0 launch
            at 1s consent grant
            at 2s track purchase
            at 3s frobnicate
            expect at 4s state purchase delivered
            expect at 4s state nothing delivered
            """
        XCTAssertEqual(
            errors(text),
            [
                "t.outbox:1: bad profile line: unknown profile `linktrial`, expected linktrail, ios, android, flutter or "
                    + ProfileResolver.realSDKs + "; did you mean `linktrail`?"
            ])
        XCTAssertEqual(
            errors("profile ios\ncompare ios,andriod\nat 0 launch\nexpect on flutr at 1s saved 0\n"),
            [
                "t.outbox:2: bad compare line: unknown profile `andriod`, expected linktrail, ios, android, flutter or "
                    + ProfileResolver.realSDKs + "; did you mean `android`?",
                "t.outbox:4: bad expect on line: unknown profile `flutr`, expected linktrail, ios, android, flutter or "
                    + ProfileResolver.realSDKs + "; did you mean `flutter`?",
            ])
    }

    func testTheCommandLinesProfilesSuggestBuiltInsAndTheUsersOwn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-forgiving-\(UUID().uuidString)")
        let folder = dir.appendingPathComponent("outbox/profiles")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let acme = Builtins.named("ios")!.spec.source.replacingOccurrences(of: "profile ios", with: "profile acme-shop")
        try acme.write(to: folder.appendingPathComponent("acme-shop.profile"), atomically: true, encoding: .utf8)
        setenv("XDG_CONFIG_HOME", dir.path, 1)
        defer { unsetenv("XDG_CONFIG_HOME") }
        guard case .failure(let p) = ProfileLoader.resolve("acme-shp", relativeTo: nil) else {
            return XCTFail("a misspelled profile resolved")
        }
        XCTAssertEqual(
            p.message,
            "unknown profile `acme-shp`, expected linktrail, ios, android, flutter or " + ProfileResolver.realSDKs
                + "; in \(folder.path): acme-shop, or a profile file (a path ending .profile); did you mean `acme-shop`?"
        )
        guard case .failure(let q) = ProfileLoader.resolve("andoid", relativeTo: nil) else { return XCTFail() }
        XCTAssertTrue(q.message.hasSuffix("; did you mean `android`?"), q.message)
    }

    func testProfileFileStatementsSayKeysAndOtherWords() {
        let base = Builtins.named("ios")!.spec.source
        func with(_ line: String) -> [String] { profileErrors(base + line + "\n") }
        let last = base.split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertEqual(
            with("sve at create"),
            [
                "p.profile:\(last): unknown statement `sve`, expected one of: profile, title, base, rule, requests, call, direct, component, keys, set, save, created, send, offline, quit, keep, expire, batch, on, backoff, retry-after, retry-budget, throttle, resend, background, report, say; did you mean `save`?"
            ])
        XCTAssertEqual(
            with("say warning.dropepd \"gone\""),
            [
                "p.profile:\(last): unknown text `warning.dropepd`, expected one of: "
                    + TextKey.allCases.map(\.rawValue).joined(separator: ", ") + "; did you mean `warning.dropped`?"
            ])
        XCTAssertEqual(
            with("set retry.atempts 2"),
            [
                "p.profile:\(last): unknown setting `retry.atempts`, expected one of: requireConsent, retry.attempts, retry.delays, retry.jitter, latency, latency.jitter, timeout, seed, request.size; did you mean `retry.attempts`?"
            ])
        XCTAssertEqual(
            with("on 5O3 retry"),
            [
                "p.profile:\(last): unknown answer class `5O3`, expected a status (403), 1xx, 2xx, 3xx, 4xx, 5xx, timeout, lost, reset, partial, offline, transport or exhausted; did you mean `503`?"
            ])
        XCTAssertEqual(
            with("on 4xx drop rejectd"),
            [
                "p.profile:\(last): bad drop reason `rejectd`, expected rejected, exhausted or not-saved; did you mean `rejected`?"
            ])
        XCTAssertEqual(
            with("on 4xx dorp rejected"),
            [
                "p.profile:\(last): unknown answer action `dorp`, expected `on CLASS deliver|retry [wait DURATION]|queue|stall|drop REASON [rule ID]`; did you mean `drop`?"
            ])
        XCTAssertEqual(
            profileErrors("profile acme\nbase andriod\n").first,
            "p.profile:2: unknown base profile `andriod`, expected linktrail, ios, android, flutter or "
                + ProfileResolver.realSDKs + "; did you mean `android`?"
        )
        XCTAssertEqual(
            profileErrors("profle acme\n"),
            ["p.profile:1: `profle` before the profile's name, expected `profile NAME` first; did you mean `profile`?"])
    }

    // MARK: Request names in expect lines

    func testAnExpectOnARequestNoLineCreatesCanOnlyFail_withTheClosestName() {
        let text = """
            profile linktrail
            at 0 launch
            at 1s consent grant
            at 2s track purchase
            at 2s track signup
            expect at 3s state purchse delivered
            expect at 3s attempts install 1
            expect at 3s state nobody delivered
            expect at 4s state purchse delivered
            expect at 4s received nobody 0
            expect at 4s counted refund 1
            """
        XCTAssertEqual(errors(text), [], "not bad input: checks that fail (scenario-format.md, Checks)")
        XCTAssertEqual(
            unmatchable(text),
            [
                "t.outbox:6: no line of the file creates a request named `purchse`, expected a name a track, screen, product, notification, ping, logout or saved line creates; did you mean `purchase`?",
                "t.outbox:8: no line of the file creates a request named `nobody`, expected one of: `purchase`, `signup`, `install`",
                // `received NAME 0` holds for a name never made (docs/scenarios.md); a count above 0 never can.
                "t.outbox:11: no line of the file creates a request named `refund`, expected one of: `purchase`, `signup`, `install`",
            ])
    }

    func testEveryWayARequestIsMadeCounts() {
        let text = """
            profile android
            saved event restored
            at 0 launch
            at 1s ping
            at 1s screen home
            at 1s product shoe
            at 1s notification promo
            at 1s logout
            at 1s track purchase
            expect at 2s attempts restored 1
            expect at 2s attempts ping 1
            expect at 2s attempts home 1
            expect at 2s attempts shoe 1
            expect at 2s attempts promo 1
            expect at 2s attempts logout 1
            expect at 2s attempts token-removal 1
            expect at 2s attempts anonymous-ping 1
            expect at 2s attempts purchase 1
            """
        XCTAssertEqual(errors(text), [])
        // The install comes with the consent gate, at a launch.
        XCTAssertEqual(
            unmatchable("profile ios\nat 0 launch\nexpect at 1s state install delivered\n"),
            [
                "t.outbox:3: no line of the file creates a request named `install` (an install comes with the consent gate; profile ios has none), expected a name a track, screen, product, notification, ping, logout or saved line creates"
            ])
        XCTAssertEqual(unmatchable("profile linktrail\nat 0 launch\nexpect at 1s state install pending\n"), [])
    }

    func testAnUnreadActionLineIsOneError_notACascade() {
        XCTAssertEqual(
            errors("profile ios\nat 0 launch\nat 1s trak purchase\nexpect at 2s state purchase delivered\n"),
            [
                "t.outbox:3: unknown action `trak`, expected one of: launch, quit, getinstance, consent grant|deny, track, ping, screen, product, notification, logout, network online|offline|flap, server; did you mean `track`?"
            ])
        // An action the profile lacks is one error too: its names still count.
        XCTAssertEqual(
            errors("profile linktrail\nat 0 launch\nat 1s screen home\nexpect at 2s state home delivered\n").count, 1)
    }

    /// `outbox compare` plays a file on profiles that leave some lines out: an
    /// expect played on a profile where only left-out lines make its request
    /// could only fail there, and fails there; one that is not played there
    /// is not held to it. The rewrite property holds: what a profile plays is
    /// what `outbox run` plays of the file rewritten for it.
    func testComparePlaysEachProfilesOwnLines() {
        let text = """
            profile android
            compare android,linktrail
            at 0 launch
            at 1s ping
            expect at 2s state ping delivered
            expect on android at 2s attempts ping 1
            """
        XCTAssertEqual(errors(text), [])
        XCTAssertEqual(errors(text, playing: .linktrail), [])
        let bad = text + "\nexpect on android,linktrail at 2s attempts ping 1\n"
        XCTAssertEqual(errors(bad, playing: .android), [])
        XCTAssertEqual(unmatchable(bad, playing: .android), [])
        XCTAssertEqual(errors(bad, playing: .linktrail), [])
        XCTAssertEqual(
            unmatchable(bad, playing: .linktrail),
            [
                "t.outbox:7: no line of the file creates a request named `ping` on profile linktrail (the lines that do are left out: it lacks what they do), expected one of: `install`"
            ])
    }

    // MARK: The command line

    /// The contract: a check on a name no request has fails, exit 1 (CI reads 1
    /// as "a check failed"), saying so with the suggestion found before the run;
    /// in `compare` and JUnit too (issue 22, item 14; it was exit 2).
    func testACheckOnANameNoLineCreates_failsWithExitOne_sayingWhy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-forgiving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("typo.outbox").path
        try """
        profile ios
        at 0 launch
        at 1s track purchase
        expect at 2s state purchase delivered
        expect at 2s state purchsae delivered
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let why =
            "no line of the file creates a request named `purchsae`, expected a name a track, screen, product, notification, ping, logout or saved line creates; did you mean `purchase`?"
        let (status, out, err) = cli(["run", "-q", path])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(
            out,
            "00:00:02.000  expect    expect at 2s state purchsae delivered  ✗ FAILED: \(why)\n"
                + "\(path): 1 passed, 1 failed · 3 transitions · ended at 00:00:02.000\n")
        XCTAssertEqual(err, "\(path):5: check failed: expect at 2s state purchsae delivered: found \(why)\n")
        let (cs, _, cerr) = cli(["compare", "-q", path, "--profiles", "ios,android"])
        XCTAssertEqual(cs, 1, cerr)
        XCTAssertTrue(
            cerr.contains("\(path):5: check failed on ios: expect at 2s state purchsae delivered: found \(why)"), cerr)
        let (js, junit, _) = cli(["run", "--format", "junit", path])
        XCTAssertEqual(js, 1)
        XCTAssertTrue(junit.contains("failures=\"1\" errors=\"0\""), junit)
        XCTAssertTrue(junit.contains("did you mean `purchase`?"), junit)
    }

    func testWithAStateDirTheDevicesRequestsCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-forgiving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("first.outbox").path
        let second = dir.appendingPathComponent("second.outbox").path
        try "profile android\nat 0 launch\nat 1s network offline\nat 2s track kept\nat 3s quit\nexpect at 3s saved 1\n"
            .write(toFile: first, atomically: true, encoding: .utf8)
        try "profile android\nat 0 launch\nexpect at 10s state kept delivered\n".write(
            toFile: second, atomically: true, encoding: .utf8)
        let state = dir.appendingPathComponent("state").path
        XCTAssertEqual(cli(["run", first, "--state-dir", state, "--quiet"]).0, 0)
        let (status, _, err) = cli(["run", second, "--state-dir", state, "--quiet"])
        XCTAssertEqual(status, 0, err)
        // Without the device the same check can only fail: a failed check, exit 1.
        XCTAssertEqual(cli(["run", second]).0, 1)
    }

    /// docs/scenarios.md's "Mistyped words" example prints what the page shows.
    func testTheDocsExampleIsWhatRunPrints() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/scenarios.md", encoding: .utf8)
        guard let cat = doc.range(of: "$ cat typo.outbox\n"), let run = doc.range(of: "$ outbox run typo.outbox\n"),
            let end = doc.range(of: "```", range: run.upperBound..<doc.endIndex)
        else { return XCTFail("docs/scenarios.md lost its Mistyped words example") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-forgiving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try String(doc[cat.upperBound..<run.lowerBound]).write(
            to: dir.appendingPathComponent("typo.outbox"), atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("typo.outbox").path
        let (status, out, err) = cli(["run", path])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(
            err.replacingOccurrences(of: path, with: "typo.outbox"), String(doc[run.upperBound..<end.lowerBound]))
    }
}
