import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// docs/profiles.md shows only real profiles: every ```profile block parses,
/// every ```profile-error block fails with exactly the errors shown in the block
/// after it, every ```profile-lines block is part of the next whole file, and
/// every ```outbox scenario plays with its checks holding and, when a
/// ```timeline block follows, prints exactly that timeline.
final class ProfilesDocTests: XCTestCase {
    static let path = packageRoot + "/docs/profiles.md"

    /// A fenced block: its info word (`profile`, `text`, ...), its text, the line its fence opens on.
    struct Block {
        let info: String
        let text: String
        let line: Int
    }

    static func blocks(_ doc: String) -> [Block] {
        var out: [Block] = []
        var open: (info: String, line: Int)?
        var body: [String] = []
        for (i, line) in doc.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let o = open {
                    out.append(Block(info: o.info, text: body.joined(separator: "\n") + "\n", line: o.line))
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), i + 1)
                    body = []
                }
            } else if open != nil {
                body.append(String(line))
            }
        }
        return out
    }

    /// The file name errors are shown with.
    static let fileName = "acme.profile"

    /// Finds `./NAME.profile` among the profiles the page has shown so far, else a built-in.
    static func resolver(_ shown: [String: Profile]) -> ProfileResolver {
        ProfileResolver { word in
            if word.hasPrefix("./") && word.hasSuffix(".profile") {
                let name = String(word.dropFirst(2).dropLast(".profile".count))
                if let p = shown[name] { return .success(p) }
                return .failure(Problem("the page shows no profile \(name)"))
            }
            return ProfileResolver.builtins.resolve(word)
        }
    }

    func testEveryProfileOnThePageIsReal() throws {
        let doc = try String(contentsOfFile: Self.path, encoding: .utf8)
        let blocks = Self.blocks(doc)
        var shown: [String: Profile] = [:]
        var counts: [String: Int] = [:]
        for (k, b) in blocks.enumerated() {
            counts[b.info, default: 0] += 1
            let at = "docs/profiles.md:\(b.line)"
            switch b.info {
            case "profile":
                switch Profile.parse(b.text, file: Self.fileName, path: "/doc/" + Self.fileName) {
                case .success(let p): shown[p.name] = p
                case .failure(let e):
                    XCTFail(
                        "\(at): the profile does not parse:\n" + e.errors.map(\.description).joined(separator: "\n"))
                }
            case "profile-error":
                guard k + 1 < blocks.count else { return XCTFail("\(at): no block shows the error") }
                let shownErrors = blocks[k + 1].text
                switch Profile.parse(b.text, file: Self.fileName, path: "/doc/" + Self.fileName) {
                case .success: XCTFail("\(at): the profile parses, the page says it fails")
                case .failure(let e):
                    XCTAssertEqual(e.errors.map(\.description).joined(separator: "\n") + "\n", shownErrors, at)
                }
            case "profile-lines":
                guard let whole = blocks[(k + 1)...].first(where: { $0.info == "profile" }) else {
                    return XCTFail("\(at): no whole profile follows")
                }
                let lines = Set(whole.text.split(separator: "\n").map(String.init))
                for l in b.text.split(separator: "\n") where !lines.contains(String(l)) {
                    XCTFail("\(at): `\(l)` is not in the profile at docs/profiles.md:\(whole.line)")
                }
            case "outbox":
                let sc: Scenario
                switch Scenario.parse(b.text, file: "acme-outage.outbox", profiles: Self.resolver(shown)) {
                case .success(let s): sc = s
                case .failure(let e):
                    XCTFail(
                        "\(at): the scenario does not parse:\n" + e.errors.map(\.description).joined(separator: "\n"))
                    continue
                }
                var runner = ScenarioRunner(sc)
                let timeline = runTimeline(&runner, format: .text)
                XCTAssertTrue(runner.failures.isEmpty, "\(at): checks failed:\n" + timeline.joined(separator: "\n"))
                if k + 1 < blocks.count, blocks[k + 1].info == "timeline" {
                    XCTAssertEqual(timeline.joined(separator: "\n") + "\n", blocks[k + 1].text, at)
                }
            default: break
            }
        }
        // The page must keep showing what this test guards.
        XCTAssertGreaterThanOrEqual(counts["profile"] ?? 0, 6, "\(counts)")
        XCTAssertGreaterThanOrEqual(counts["profile-error"] ?? 0, 4, "\(counts)")
        XCTAssertGreaterThanOrEqual(counts["profile-lines"] ?? 0, 3, "\(counts)")
        XCTAssertEqual(counts["outbox"], 1, "\(counts)")
        XCTAssertEqual(counts["timeline"], 1, "\(counts)")
        XCTAssertNotNil(shown["acme"], "the walkthrough's profile")
    }

    /// The walkthrough through the command line: its profile and scenario saved
    /// side by side, `outbox profiles ./acme.profile` reads the profile, `outbox
    /// run acme-outage.outbox` prints the page's timeline and then a summary with
    /// every check holding, and a profile-error block read as a file exits 2
    /// naming its file and line.
    func testTheWalkthroughRunsOnTheCommandLine() throws {
        let doc = try String(contentsOfFile: Self.path, encoding: .utf8)
        let blocks = Self.blocks(doc)
        let profile = try XCTUnwrap(blocks.last { $0.info == "profile" && $0.text.contains("profile acme\n") })
        let k = try XCTUnwrap(blocks.firstIndex { $0.info == "outbox" })
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-doc-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try profile.text.write(to: dir.appendingPathComponent("acme.profile"), atomically: true, encoding: .utf8)
        let scenario = dir.appendingPathComponent("acme-outage.outbox").path
        try blocks[k].text.write(toFile: scenario, atomically: true, encoding: .utf8)

        let (ps, pout, perr) = cli(["profiles", dir.appendingPathComponent("acme.profile").path])
        XCTAssertEqual(ps, 0, perr)
        XCTAssertTrue(pout.hasPrefix("acme: Acme Analytics SDK (what-if)\n"), pout)
        XCTAssertTrue(pout.contains("  ACME-3 [assumption] Any other 4xx stays queued"), pout)

        let (status, out, err) = cli(["run", scenario])
        XCTAssertEqual(status, 0, err)
        var lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.removeLast(), "")
        let summary = lines.removeLast()
        XCTAssertEqual(lines.joined(separator: "\n") + "\n", blocks[k + 1].text)
        XCTAssertTrue(summary.hasPrefix(scenario + ": 3 passed, 0 failed · "), summary)

        let bad = try XCTUnwrap(blocks.first { $0.info == "profile-error" })
        let badPath = dir.appendingPathComponent("bad.profile").path
        try bad.text.write(toFile: badPath, atomically: true, encoding: .utf8)
        let (bs, _, berr) = cli(["profiles", badPath])
        XCTAssertEqual(bs, 2)
        let shown = try XCTUnwrap(
            blocks[blocks.firstIndex { $0.line == bad.line }! + 1].text.split(separator: "\n").first)
        XCTAssertTrue(berr.contains(badPath + shown.dropFirst(Self.fileName.count)), berr)
    }

    /// "Start from a built-in's own text": `outbox profiles --source ios` prints
    /// the file exactly, and with its profile line renamed it is a profile of
    /// your own that behaves as iOS does.
    func testSourceOfABuiltinRenamedIsAProfileOfYourOwn() throws {
        let doc = try String(contentsOfFile: Self.path, encoding: .utf8)
        XCTAssertTrue(doc.contains("outbox profiles --source ios > acme.profile"))
        let (status, out, err) = cli(["profiles", "--source", "ios"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, Builtins.source("ios"))
        XCTAssertTrue(out.contains("\nprofile ios\n"))
        let mine = try Profile.parse(
            out.replacingOccurrences(of: "\nprofile ios\n", with: "\nprofile acme\n"), file: "acme.profile",
            path: "/x/acme.profile"
        ).mapError { $0 as Error }.get()
        XCTAssertEqual(mine.name, "acme")
        XCTAssertEqual(mine.ownRules.map { mine.rule($0).id }, Profile.ios.ownRules.map { Profile.ios.rule($0).id })
        XCTAssertEqual(Settings(profile: mine), Settings(profile: .ios))
    }

    /// The table of `say` keys lists every key with exactly the slots it allows.
    func testTheSayTableListsEveryKeyAndItsSlots() throws {
        let doc = try String(contentsOfFile: Self.path, encoding: .utf8)
        for key in TextKey.allCases {
            let row = "| `\(key.rawValue)` | " + key.slots.map { "`{\($0.rawValue)}`" }.joined(separator: " ") + " |"
            XCTAssertTrue(doc.contains(row), "docs/profiles.md should have the row: \(row)")
        }
        let rows = doc.split(separator: "\n").filter {
            $0.hasPrefix("| `") && ($0.contains("` | `{") || $0.hasSuffix("` |  |"))
        }
        XCTAssertEqual(rows.count, TextKey.allCases.count, rows.joined(separator: "\n"))
    }

    /// Every statement the parser reads has its own heading in the reference.
    func testEveryStatementHasAHeading() throws {
        let doc = try String(contentsOfFile: Self.path, encoding: .utf8)
        for word in [
            "profile", "base", "title", "rule", "requests", "call", "direct", "component", "keys", "set", "save",
            "created",
            "send", "offline", "quit", "on", "resend", "report", "say",
        ] {
            XCTAssertTrue(doc.contains("\n### `\(word)"), "docs/profiles.md has no heading for `\(word)`")
        }
        // And the parser knows no statement the page does not: an unknown word lists them all.
        guard case .failure(let e) = Profile.parse("profile x\nfrobnicate\n", file: "x.profile") else {
            return XCTFail("an unknown statement parsed")
        }
        let listed = e.errors[0].message.components(separatedBy: "expected one of: ").last ?? ""
        for word in listed.components(separatedBy: ", ") {
            XCTAssertTrue(
                doc.contains("\n### `\(word)"), "the parser reads `\(word)`; docs/profiles.md has no heading for it")
        }
    }
}
