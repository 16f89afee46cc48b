import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// What is made from the profile language's declarations (LanguageDocs) is
/// what the repository holds: docs/profiles.md's Statements section and the
/// fuzz dictionaries (scripts/profiles-doc writes them), and `outbox profiles
/// NAME --explain` names the file of each line.
final class GeneratedDocsTests: XCTestCase {
    static let stale =
        "is stale: run scripts/profiles-doc (it writes docs/profiles.md and Fuzz/*.dict from the declarations)"

    func testProfilesDocStatementsSectionIsMadeFromTheDeclarations() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/profiles.md", encoding: .utf8)
        let region = try XCTUnwrap(
            LanguageDocs.region(of: doc), "docs/profiles.md has no generated region: " + LanguageDocs.begin)
        XCTAssertEqual(region, LanguageDocs.statements, "docs/profiles.md " + Self.stale)
        // The region is the whole section: the next heading after it is another `## `.
        let after = doc[doc.range(of: region)!.upperBound...]
        XCTAssertTrue(after.hasPrefix("\n## "), String(after.prefix(80)))
        XCTAssertTrue(region.contains("\n## Statements\n"), region)
        // What `outbox profiles --statements` prints.
        let (status, out, err) = cli(["profiles", "--statements"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, LanguageDocs.statements)
    }

    func testEveryStatementAndComponentIsDocumented() throws {
        let section = LanguageDocs.statements
        for st in Policy.documented {
            XCTAssertFalse(st.doc.isEmpty, "`\(st.keyword)` has no StatementDoc")
            for d in st.doc {
                XCTAssertFalse(d.text.isEmpty, st.keyword)
                for h in st.headings(d) {
                    XCTAssertTrue(h.hasPrefix("`" + st.keyword + " "), "\(st.keyword): heading \(h)")
                    XCTAssertTrue(section.contains("\n### " + h + "\n"), h)
                }
            }
        }
        for c in Policy.components {
            XCTAssertTrue(section.contains("\n### `" + Statement.docForm(c.form) + "`\n"), c.name)
        }
        // The kinds the intro lists are the built-in vocabulary's.
        for k in Vocabulary.builtin.kinds { XCTAssertTrue(section.contains("`\(k)`"), k) }
    }

    func testFuzzDictionariesAreMadeFromTheDeclarations() throws {
        for target in LanguageDocs.fuzzTargets {
            let path = packageRoot + "/Fuzz/\(target).dict"
            let file = try String(contentsOfFile: path, encoding: .utf8)
            let made = try XCTUnwrap(LanguageDocs.fuzzDictionary(target))
            XCTAssertEqual(file, made, "Fuzz/\(target).dict " + Self.stale)
            XCTAssertEqual(cli(["profiles", "--fuzz-dict", target]).1, made)
            // Every entry is one libFuzzer reads: a comment or a quoted word, each once.
            let entries = made.split(separator: "\n").filter { !$0.hasPrefix("#") }
            XCTAssertEqual(Set(entries).count, entries.count, target)
            for e in entries { XCTAssertTrue(e.count >= 3 && e.hasPrefix("\"") && e.hasSuffix("\""), String(e)) }
        }
        let words = Set(try XCTUnwrap(LanguageDocs.fuzzDictionary("profile")).split(separator: "\n").map(String.init))
        for w in ["call", "makes", "when-saved", "consent-gate", "retry.jitter", "{retrying}", "NET"]
            + Vocabulary.builtin.kinds + Builtins.all.map(\.name)
        {
            XCTAssertTrue(words.contains("\"\(w)\""), w)
        }
        let (status, out, err) = cli(["profiles", "--fuzz-dict", "theme"])
        XCTAssertEqual(status, 2)
        XCTAssertEqual(out, "")
        XCTAssertEqual(err, "outbox profiles --fuzz-dict: no dictionary for `theme`, expected profile or scenario\n")
    }

    /// The files the declarations name exist.
    func testTheDeclaredFilesExist() {
        var files = Policy.documented.map(\.file) + Policy.components.map(\.file)
        files += Settings.keys.compactMap { ProfileParser.setStatement.fileOf?(["set", $0.name]) }
        for f in Set(files) {
            XCTAssertTrue(FileManager.default.fileExists(atPath: packageRoot + "/Sources/OutboxCore/" + f), f)
        }
    }

    func testExplainShowsEachLineOfABuiltInWithTheFileThatImplementsIt() {
        let (status, out, err) = cli(["profiles", "ios", "--explain"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(err, "")
        XCTAssertEqual(
            out,
            """
            ios: Positive User (UserCom) SDK on iOS
            each statement, then the file of Sources/OutboxCore/ that implements it:

            # Positive User (UserCom) SDK on iOS: the rules IOS-1 to IOS-7 of shared/spec/delivery-rules.md.
            # Built into outbox; `outbox profiles --source ios` prints this file.
            profile ios
                → Profiles/ProfileParser.swift (profile)
            title "Positive User (UserCom) SDK on iOS"
                → Profiles/ProfileParser.swift (title)

            rule IOS-1 "Pings, events, screen and product events and notification reports go into one queue saved on the device."
                → Profiles/ProfileParser.swift (rule)
            rule IOS-2 assumption "No head-of-line blocking: every request whose time has come goes out at once, oldest first."
                → Profiles/ProfileParser.swift (rule)
            rule IOS-3 "2xx: delivered, completion true; 4xx: dropped (rejected), completion false; 5xx or transport error: retried."
                → Profiles/ProfileParser.swift (rule)
            rule IOS-4 "Up to retry.attempts attempts, waiting retry.delays; when the last fails: dropped (exhausted), completion false."
                → Profiles/ProfileParser.swift (rule)
            rule IOS-5 "Offline: nothing is sent, nothing counts as an attempt; requests wait queued and go out when the network returns."
                → Profiles/ProfileParser.swift (rule)
            rule IOS-6 "A request saved when the app closes goes out at once after the next launch, budget reset, completion never called."
                → Profiles/ProfileParser.swift (rule)
            rule IOS-7 assumption "logout sends logout, token-removal and anonymous-ping outside the queue; never saved or retried (not-saved)."
                → Profiles/ProfileParser.swift (rule)

            # What the app can call besides launch, quit and track.
            requests ping screen product notification logout
                → Profiles/ProfileParser.swift (requests)
            # IOS-7: the three logout requests go outside the queue.
            direct logout token-removal anonymous-ping rule IOS-7
                → Policy/Direct.swift (direct)

            set retry.attempts 4
                → Policy/Backoff.swift (set retry.attempts)
            set retry.delays 30s,1m,2m
                → Policy/Backoff.swift (set retry.delays)

            # Saved into the queue when made (IOS-1), sent at once (IOS-2).
            save at create
                → Policy/Saving.swift (save)
            created rule IOS-1
                → Policy/Saving.swift (created)
            send rule IOS-2
                → Policy/Saving.swift (send)
            # IOS-5: offline, nothing is sent; requests wait queued.
            offline hold rule IOS-5
                → Policy/Offline.swift (offline)
            quit keeps saved rule IOS-6
                → Policy/Saving.swift (quit)

            on 2xx deliver rule IOS-3
                → Policy/Answers.swift (on)
            on transport retry rule IOS-4
                → Policy/Answers.swift (on)
            on 5xx retry rule IOS-4
                → Policy/Answers.swift (on)
            on 4xx drop rejected rule IOS-3
                → Policy/Answers.swift (on)
            on exhausted drop exhausted rule IOS-4
                → Policy/Answers.swift (on)

            resend on launch rule IOS-6
                → Policy/Resend.swift (resend)
            resend on network rule IOS-5
                → Policy/Resend.swift (resend)

            report completion rule IOS-6
                → Policy/Reporting.swift (report)

            say completion.delivered "completion({label}): true"
                → Policy/Texts.swift (say)
            say completion.dropped "completion({label}): false ({reason} {outcome})"
                → Policy/Texts.swift (say)
            say completion.exhausted "completion({label}): false ({outcome} on the last of {attempts} attempts)"
                → Policy/Texts.swift (say)
            say completion.lost "{label}: no completion handler to call (it survived a quit, IOS-6)"
                → Policy/Texts.swift (say)
            say legend.completion "iOS completion"
                → Policy/Texts.swift (say)
            say resend.launch "launch: {count} saved go out (IOS-6)"
                → Policy/Texts.swift (say)
            say resend.network "queue restarts: {count} queued go out (IOS-5)"
                → Policy/Texts.swift (say)
            say waits.launch "offline at launch: {count} saved wait (IOS-5)"
                → Policy/Texts.swift (say)

            """)
        // Every line fits 80 columns but the file's own.
        let source = Set(Builtins.ios.spec.source.split(separator: "\n").map(String.init))
        for l in out.split(separator: "\n") where !source.contains(String(l)) {
            XCTAssertLessThanOrEqual(l.count, 80, String(l))
        }
    }

    /// A user file: its path, a `base` line's copy, a component and a setting
    /// by their files, a control byte in a comment escaped, a tab and a CRLF line end.
    func testExplainOfAUserFileWithABase() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("explain-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ios-patient.profile").path
        try """
        # iOS, but patient \u{1b}[2J: 10 attempts.
        profile ios-patient
        base ios
        title "iOS, patient (what-if)"

        rule P-1 "Flushed after each success."
        component flush start P-1 more P-1 stop P-1 send P-1
        \tset retry.attempts 10\r

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, out, err) = cli(["profiles", path, "--explain"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            out,
            """
            ios-patient: iOS, patient (what-if)
            (from \(path))
            each statement, then the file of Sources/OutboxCore/ that implements it:

            # iOS, but patient \\x1b[2J: 10 attempts.
            profile ios-patient
                → Profiles/ProfileParser.swift (profile)
            base ios
                → Profiles/ProfileParser.swift (base): starts from a copy of ios
            title "iOS, patient (what-if)"
                → Profiles/ProfileParser.swift (title)

            rule P-1 "Flushed after each success."
                → Profiles/ProfileParser.swift (rule)
            component flush start P-1 more P-1 stop P-1 send P-1
                → Policy/Flush.swift (component flush)
            \\tset retry.attempts 10
                → Policy/Backoff.swift (set retry.attempts)

            """)
    }

    func testExplainErrorsAreThoseOfTheCommand() {
        let unknown = cli(["profiles", "nosuch", "--explain"])
        XCTAssertEqual(unknown.0, 2)
        XCTAssertEqual(unknown.1, "")
        XCTAssertEqual(unknown.2, cli(["profiles", "nosuch"]).2)
        XCTAssertTrue(unknown.2.hasPrefix("outbox profiles: unknown profile `nosuch`, expected linktrail,"), unknown.2)
        let none = cli(["profiles", "--explain"])
        XCTAssertEqual(none.0, 2)
        XCTAssertEqual(
            none.2,
            "outbox profiles --explain: expected one profile name or PATH.profile\nusage: "
                + ProfilesCommand.synopsis + "\n")
        let both = cli(["profiles", "ios", "--explain", "--source"])
        XCTAssertEqual(both.0, 2)
        XCTAssertTrue(both.2.hasPrefix("outbox profiles: --source and --explain do not go together"), both.2)
        XCTAssertEqual(cli(["profiles", "ios", "--statements"]).0, 2)
    }
}
