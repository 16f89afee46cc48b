import OutboxTestSupport
import XCTest

@testable import OutboxCore

/// The `saved` and `device` lines: a device's starting contents (docs/scenarios.md).
final class DeviceStartTests: XCTestCase {
    func parse(_ text: String) -> Result<Scenario, ScenarioErrors> { Scenario.parse(text, file: "d.outbox") }

    func errors(_ text: String) -> [String] {
        guard case .failure(let e) = parse(text) else { return [] }
        return e.errors.map(\.description)
    }

    func timeline(_ text: String) -> [String] {
        guard case .success(let sc) = parse(text) else {
            XCTFail("does not parse: \(errors(text))")
            return []
        }
        var runner = ScenarioRunner(sc)
        runner.run()
        return journalLines(runner.sim, format: .text)
    }

    func test_savedLines_areRestoredAtTheFirstLaunch_asADeviceOnDiskWouldBe() {
        let lines = timeline(
            """
            profile linktrail
            device consent granted install created opens 2
            saved event purchase created 90s attempts 2 key 0123456789abcdef value=49.99 currency=USD "note=two words"
            saved event signup
            at 0 launch
            """)
        XCTAssertEqual(
            lines,
            [
                "00:00:00.000  outbox    app launched (launch 1)",
                "00:00:00.000  #1    event          purchase        new → queued            attempt 2                         LT-12",
                "00:00:00.000  #2    event          signup          new → queued                                              LT-12",
                "00:00:00.000  log       [LinkTrail] configure (consent granted, required)",
                "00:00:00.000  log       flush started (LT-8: launch) · 2 queued",
                "00:00:00.000  #1    event          purchase        queued → in-flight      attempt 3                         LT-11",
                "00:00:00.200  #1    event          purchase        in-flight → delivered   attempt 3   200                   LT-11",
                "00:00:00.200  #2    event          signup          queued → in-flight      attempt 1                         LT-11",
                "00:00:00.400  #2    event          signup          in-flight → delivered   attempt 1   200                   LT-11",
                "00:00:00.400  log       flush ended (LT-11: queue empty) · sent 2 · 0 left",
            ])
    }

    func test_lines_readBackToTheSameContents_onEveryProfile() {
        for profile in Profile.seeds {
            var d = DeviceStart()
            if profile == .linktrail {
                d.consent = .denied
                d.installCreated = true
                d.opens = 77
                d.saved.append(
                    SavedRequest(
                        id: 1, kind: .install, name: "install", createdAt: 0, idempotencyKey: 5,
                        value: nil, currency: "", attributes: [], attempts: 0, waitingForConsent: true))
            } else {
                d.saved.append(
                    SavedRequest(
                        id: 1, kind: .screen, name: "a=b \"q\" \u{1b}", createdAt: 1, idempotencyKey: 0,
                        value: nil, currency: "", attributes: [], attempts: 1_000_000_000,
                        waitingForConsent: false))
            }
            d.saved.append(
                SavedRequest(
                    id: Int32(d.saved.count + 1), kind: .event, name: "big order", createdAt: 3_600_001,
                    idempotencyKey: profile == .linktrail ? 0xFFFF_FFFF_FFFF_FFFF : 0,
                    value: Amount.parse("-12.000001"), currency: "EUR",
                    attributes: [Attribute(key: "k", value: "v w"), Attribute(key: "attempts", value: "3")],
                    attempts: 4, waitingForConsent: false))
            let text =
                "profile \(profile.rawValue)\n" + d.lines(profile: profile).joined(separator: "\n") + "\nat 0 launch\n"
            guard case .success(let sc) = parse(text) else { return XCTFail("\(errors(text))\n" + text) }
            XCTAssertEqual(sc.device, d, text)
            XCTAssertEqual(sc.device.line, 2)
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, text)
        }
    }

    func test_aLinkTrailLineWithoutAKey_getsTheKeyLT7Gives() {
        guard
            case .success(let sc) = parse(
                "profile linktrail\nset seed 9\ndevice opens 4\nsaved event a\nsaved event b key none\n")
        else { return XCTFail() }
        XCTAssertEqual(
            sc.device.saved.map(\.idempotencyKey),
            [Simulation.linkTrailKey(seed: 9, id: 1, opens: 4), 0])
    }

    func test_badLines_sayWhereAndWhatWasExpected() {
        XCTAssertEqual(
            errors(
                """
                profile ios
                saved bogus x
                saved install install
                saved event e key 0123456789abcdef
                saved ping ping value=3
                saved event e attempts -1
                saved event e attempts 1000000001
                saved event e created 1m30q
                saved event e waiting
                saved event e colour
                saved event e attempts 1 attempts 2
                saved event e attempts
                saved event
                device consent granted
                at 0 launch
                saved event late
                """),
            [
                "d.outbox:2: unknown request kind `bogus`, expected one of: install, event, ping, screen, product, notification, logout, token-removal, anonymous-ping",
                "d.outbox:3: an install comes with the consent gate; profile ios has none",
                "d.outbox:4: `key`: profile ios has no idempotency keys",
                "d.outbox:5: `value=3`: only an event has a value, a currency or attributes",
                "d.outbox:6: bad attempts `-1`, expected a whole number from 0 to 1000000000",
                "d.outbox:7: bad attempts `1000000001`, expected a whole number from 0 to 1000000000",
                "d.outbox:8: bad created time `1m30q`, " + VirtualTime.expected,
                "d.outbox:9: `waiting` is only for an install held by the consent gate (LT-3)",
                "d.outbox:10: unknown word `colour` in a saved line, expected " + DeviceStart.savedForm,
                "d.outbox:11: `attempts` given twice in a saved line",
                "d.outbox:12: `attempts` needs a value, expected " + DeviceStart.savedForm,
                "d.outbox:13: bad saved line, expected " + DeviceStart.savedForm,
                "d.outbox:14: the device line gives the consent gate's decision, its install and the open count; profile ios has no consent gate",
                "d.outbox:16: `saved` after the first `at` line, expected the device's starting contents before the first `at`",
            ])
        XCTAssertEqual(
            errors(
                """
                profile linktrail
                device consent maybe
                device opens 1
                saved ping ping
                saved event e key 12
                at 0 launch
                """),
            [
                "d.outbox:2: bad consent `maybe`, expected undecided, granted or denied",
                "d.outbox:3: a second device line, expected one `device` line per scenario",
                "d.outbox:4: ping is not among the requests of profile linktrail",
                "d.outbox:5: bad key `12`, expected 16 hex digits (not all zero) or none",
            ])
        XCTAssertEqual(
            errors("profile linktrail\ndevice opens 16777216 install yes\n"),
            ["d.outbox:2: bad opens `16777216`, expected a whole number from 0 to 16777215"])
        XCTAssertEqual(
            errors("saved event e\nprofile ios\n"),
            ["d.outbox:1: `saved` before the profile, expected `profile linktrail|ios|android|flutter` first"])
    }

    /// `outbox compare`: a saved request a profile cannot hold, and the device
    /// line off LinkTrail, are skipped there (reported); keys go only to LinkTrail.
    func test_playingAnotherProfile_skipsWhatItCannotHold() {
        let text = """
            profile linktrail
            device consent granted install created
            saved install install waiting key 00000000000000aa
            saved event e key 00000000000000bb
            at 0 launch
            """
        guard case .success(let ios) = Scenario.parse(text, file: "d.outbox", playing: .ios) else { return XCTFail() }
        XCTAssertEqual(ios.skipped.map(\.line), [2, 3])
        XCTAssertEqual(
            ios.skipped.map(\.reason),
            [
                "the device line gives the consent gate's decision, its install and the open count; profile ios has no consent gate",
                "an install comes with the consent gate; profile ios has none",
            ])
        XCTAssertEqual(ios.device.saved.map(\.name), ["e"])
        XCTAssertEqual(ios.device.saved.map(\.idempotencyKey), [0])
        XCTAssertTrue(ios.device.saved.allSatisfy { $0.id == 1 })
        guard case .success(let lt) = Scenario.parse(text, file: "d.outbox", playing: .linktrail) else {
            return XCTFail()
        }
        XCTAssertEqual(lt.device.saved.map(\.idempotencyKey), [0xaa, 0xbb])
        XCTAssertEqual(lt.device.saved.map(\.waitingForConsent), [true, false])
    }

    /// A held install on a device whose consent is undecided waits at launch (LT-3).
    func test_aHeldInstall_waitsForConsent() {
        let lines = timeline(
            """
            profile linktrail
            device install created
            saved install install waiting
            at 0 launch
            """)
        XCTAssertEqual(
            lines.filter { $0.contains("#1") },
            [
                "00:00:00.000  #1    install        install         new → pending                                             LT-12"
            ])
    }

    /// docs/scenarios.md's example of the section plays as its comment says.
    func test_theDocsExample_playsAsItSays() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/scenarios.md", encoding: .utf8)
        let section = try XCTUnwrap(doc.range(of: "## A device's starting contents"))
        let rest = doc[section.upperBound...]
        let open = try XCTUnwrap(rest.range(of: "```\n"))
        let close = try XCTUnwrap(rest[open.upperBound...].range(of: "```"))
        let lines = timeline(String(rest[open.upperBound..<close.lowerBound]))
        XCTAssertEqual(
            lines.filter { $0.contains("LT-12") || $0.contains("delivered") },
            [
                "00:00:00.000  #1    event          purchase        new → queued            attempt 2                         LT-12",
                "00:00:00.000  #2    event          signup          new → queued                                              LT-12",
                "00:00:00.200  #1    event          purchase        in-flight → delivered   attempt 3   200                   LT-11",
                "00:00:00.400  #2    event          signup          in-flight → delivered   attempt 1   200                   LT-11",
            ])
    }
}
