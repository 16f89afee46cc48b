import XCTest

@testable import OutboxCore

/// What may reach a terminal or a text file from input: control and bidi scalars
/// escaped, long text cut with a count, everything else kept.
final class SafeTextTests: XCTestCase {
    func test_c0Controls_escapedAsHex_tabNewlineReturnByName() {
        XCTAssertEqual(SafeText.escaped("\u{1b}]2;TITLE\u{07}", max: 100), "\\x1b]2;TITLE\\x07")
        XCTAssertEqual(SafeText.escaped("a\tb\nc\rd", max: 100), "a\\tb\\nc\\rd")
        XCTAssertEqual(SafeText.escaped("\u{0}\u{1}\u{1f}", max: 100), "\\x00\\x01\\x1f")
        for v in UInt32(0)..<0x20 {
            let e = SafeText.escaped(String(Character(Unicode.Scalar(v)!)), max: 100)
            XCTAssertTrue(e.hasPrefix("\\"), "U+\(String(v, radix: 16)) shown as \(e.debugDescription)")
            XCTAssertTrue(e.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, e.debugDescription)
        }
    }

    func test_delAndC1Controls_escaped() {
        XCTAssertEqual(SafeText.escaped("x\u{7f}y", max: 100), "x\\x7fy")
        XCTAssertEqual(SafeText.escaped("\u{9b}31m\u{85}\u{80}\u{9f}", max: 100), "\\u{9b}31m\\u{85}\\u{80}\\u{9f}")
        XCTAssertEqual(
            SafeText.escaped("\u{a0}", max: 100), "\u{a0}", "U+00A0 is the first scalar after C1, shown as is")
    }

    func test_bidiOverridesAndSeparators_escaped() {
        // "file\u{202e}txt.exe" would read as "fileexe.txt".
        XCTAssertEqual(SafeText.escaped("file\u{202e}txt.exe", max: 100), "file\\u{202e}txt.exe")
        for v: UInt32 in [
            0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
            0x2066, 0x2067, 0x2068, 0x2069,
        ] {
            XCTAssertEqual(
                SafeText.escaped(String(Character(Unicode.Scalar(v)!)), max: 100),
                "\\u{" + String(v, radix: 16) + "}")
        }
        // Neighbours that are not bidi controls stay.
        for v: UInt32 in [0x061B, 0x200D, 0x2027, 0x202F, 0x2065, 0x206A] {
            let s = String(Character(Unicode.Scalar(v)!))
            XCTAssertEqual(SafeText.escaped(s, max: 100), s, "U+\(String(v, radix: 16))")
        }
    }

    func test_otherText_keptIntact() {
        let text = "café ☕ 日本語 👩‍👩‍👧 e\u{301} back\\slash \"quoted\" ~"
        XCTAssertEqual(SafeText.escaped(text, max: 1000), text)
        XCTAssertEqual(SafeText.escaped("", max: 0), "")
        // Escapes are printable ASCII, so escaping again changes nothing.
        let once = SafeText.escaped("\u{1b}[31m\u{9b}\u{202e}\t", max: 1000)
        XCTAssertEqual(SafeText.escaped(once, max: 1000), once)
    }

    func test_longText_cutWithTheCountOfWhatIsLeftOut() {
        XCTAssertEqual(SafeText.escaped("abcdef", max: 6), "abcdef")
        XCTAssertEqual(SafeText.escaped("abcdefg", max: 6), "abcdef…[+1 chars]")
        XCTAssertEqual(
            SafeText.escaped(String(repeating: "x", count: 100_000), max: 10),
            "xxxxxxxxxx…[+99990 chars]")
        XCTAssertEqual(SafeText.escaped("abc", max: 0), "…[+3 chars]")
        // An escape is never cut in half: it goes whole or not at all.
        XCTAssertEqual(SafeText.escaped("ab\u{1b}c", max: 4), "ab…[+2 chars]")
        XCTAssertEqual(SafeText.escaped("ab\u{1b}c", max: 6), "ab\\x1b…[+1 chars]")
        // Counted in scalars, so one grapheme of a million combining marks is cut too.
        let bomb = "e" + String(repeating: "\u{301}", count: 1_000_000)
        XCTAssertEqual(SafeText.escaped(bomb, max: 3), "e\u{301}\u{301}…[+999998 chars]")
    }

    func test_needsEscape_agreesWithEscape_forEveryScalarUpTo0x3000() {
        for v in UInt32(0)..<0x3000 {
            guard let s = Unicode.Scalar(v) else { continue }
            XCTAssertEqual(SafeText.needsEscape(s), SafeText.escape(s) != nil, "U+\(String(v, radix: 16))")
            if let e = SafeText.escape(s) {
                XCTAssertTrue(e.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, e)
            }
        }
    }
}
