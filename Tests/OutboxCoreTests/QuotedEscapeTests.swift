import XCTest

@testable import OutboxCore

/// Issue 10: a name holding control characters (typed on the `:` line, or read
/// from a file with escapes) is written by a recording as escapes, stays on one
/// line, and reads back as the same name, through both lexers.
final class QuotedEscapeTests: XCTestCase {
    static let names = [
        "plain", "with space", "a\u{1b}]2;TITLE\u{07}", "line\nbreak", "cr\rlf", "tab\there", "c1\u{9b}x",
        "bidi\u{202e}txt", "quote\"back\\slash", "#hash", "emoji😀", "\u{0}", "é\u{301}", "\\x1b literally",
    ]

    func testRecordedActionsReadBackTheSameThroughBothLexers() throws {
        for name in Self.names {
            let actions: [Action] = [
                .eventTracked(TrackedEvent(name: name, attributes: [Attribute(key: "k" + name, value: name)])),
                .screenViewed(name),
            ]
            for action in actions {
                let text = ActionSyntax.text(for: action)
                XCTAssertFalse(text.contains("\n"), "one line: \(text)")
                for u in text.unicodeScalars {
                    XCTAssertFalse(SafeText.needsEscape(u), "no control in the recording: \(text)")
                }
                // LineLexer (the `:` line, and files with bytes beyond ASCII).
                let words = try LineLexer.words(text).get().words
                guard case .success(let back)? = ActionSyntax.parse(words) else { return XCTFail(text) }
                XCTAssertEqual(back, action, text)
                // A whole file (ASCII lines go through the byte lexer).
                let sc = try Scenario.parse("profile ios\nat 0 launch\nat 1s \(text)\n", file: "r.outbox").get()
                guard case .action(let fromFile) = sc.steps[1].content else { return XCTFail(text) }
                XCTAssertEqual(fromFile, action, text)
            }
        }
    }

    func testEscapesInsideQuotesOnly() throws {
        let w = try LineLexer.words(#"track "a\x41\u{42}\t\q\x4" b\x41"#).get().words
        XCTAssertEqual(w, ["track", "aAB\tqx4", "b\\x41"], "outside quotes a backslash is a character")
        let bad = try LineLexer.words(#"track "\u{110000}\u{}\u{1234567}""#).get().words
        XCTAssertEqual(bad, ["track", "u{110000}u{}u{1234567}"], "not a scalar: the letters stand for themselves")
    }
}
