import OutboxTestSupport
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

/// Scalars that join their neighbour into one Character (a combining mark, a
/// zero-width joiner, a prepended mark) are written so that they cannot fuse
/// with the line's own quote, space or an escape's last digit: every action
/// holding one reads back to itself (a fuzzer finding: `\x00` then U+0742).
final class FusingScalarTests: XCTestCase {
    func roundTrip(_ a: Action, file: StaticString = #filePath, line: UInt = #line) {
        let written = ActionSyntax.text(for: a)
        guard case .success(let lexed) = LineLexer.words(written) else {
            return XCTFail("does not lex: \(written)", file: file, line: line)
        }
        XCTAssertEqual(ActionSyntax.parse(lexed.words), .success(a), written, file: file, line: line)
        // And inside a whole scenario line, as a recording writes it.
        guard case .success(let sc) = Scenario.parse("profile ios\nat 0 launch\nat 1s " + written + "\n", file: "r") else {
            return XCTFail("does not parse: \(written)", file: file, line: line)
        }
        guard case .action(let back) = sc.steps[1].content else { return XCTFail("\(sc.steps[1])", file: file, line: line) }
        XCTAssertEqual(back, a, written, file: file, line: line)
    }

    func test_markAfterAnEscape_atTheStart_atTheEnd_readsBack() {
        for name in ["v\u{0}\u{742}\u{1}x", "\u{301}x", "a\u{600}", "\u{200D}", "x\u{200D}", "e\u{301}", "\u{1}\u{301}"] {
            roundTrip(.eventTracked(TrackedEvent(name: name)))
            roundTrip(.screenViewed(name))
            roundTrip(.eventTracked(TrackedEvent(name: "n", attributes: [Attribute(key: name, value: name)])))
        }
    }

    func test_theFuzzersFinding_readsBack() throws {
        let a = Action.eventTracked(
            TrackedEvent(name: "purchase", currency: "USD", attributes: [Attribute(key: "v\0\u{0742}\u{01}\u{FFFD}datalue", value: "49.99")]))
        roundTrip(a)
        XCTAssertEqual(
            ActionSyntax.text(for: a), "track purchase currency=USD \"v\\x00\\u{742}\\x01\u{FFFD}datalue=49.99\"")
    }

    /// Plain text stays plain: precomposed letters and other scripts are not escaped.
    func test_ordinaryTextIsWrittenAsItIs() {
        XCTAssertEqual(ActionSyntax.text(for: .screenViewed("café")), "screen café")
        XCTAssertEqual(ActionSyntax.text(for: .screenViewed("日本")), "screen 日本")
    }
}
