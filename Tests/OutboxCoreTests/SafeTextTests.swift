import OutboxTestSupport
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
        // Neighbours that are neither bidi controls nor invisible stay.
        for v: UInt32 in [0x061B, 0x200C, 0x200D, 0x2027, 0x202F, 0x2070, 0xAC, 0xAE, 0xFE0E, 0xFE0F, 0xFEFE, 0xFF00] {
            let s = String(Character(Unicode.Scalar(v)!))
            XCTAssertEqual(SafeText.escaped(s, max: 100), s, "U+\(String(v, radix: 16))")
        }
    }

    /// Issue 22: characters a terminal draws as nothing are shown, so `a\u{feff}b`
    /// and `ab` look different, and a byte-order mark before `profile` is seen.
    func test_invisibleCharacters_escaped_soLookalikesDiffer() {
        XCTAssertEqual(SafeText.escaped("a\u{feff}b", max: 100), "a\\u{feff}b")
        XCTAssertEqual(SafeText.escaped("a\u{200b}b", max: 100), "a\\u{200b}b")
        XCTAssertEqual(
            SafeText.line("`\u{feff}profile` ... did you mean `profile`?"),
            "`\\u{feff}profile` ... did you mean `profile`?")
        let invisible: [UInt32] = [
            0xAD, 0x34F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180E, 0x180F, 0x200B, 0x2060, 0x2061, 0x2062,
            0x2063, 0x2064, 0x2065, 0x206A, 0x206F, 0x3164, 0xFE00, 0xFE0D, 0xFEFF, 0xFFA0, 0xFFF0, 0xFFF8, 0x1BCA0,
            0x1BCA3, 0x1D173, 0x1D17A, 0xE0000, 0xE0001, 0xE0020, 0xE007F, 0xE0100, 0xE01EF, 0xE0FFF,
        ]
        for v in invisible {
            let u = Unicode.Scalar(v)!
            XCTAssertTrue(SafeText.needsEscape(u), "U+\(String(v, radix: 16))")
            XCTAssertEqual(SafeText.escape(u), "\\u{" + String(v, radix: 16) + "}")
        }
        // The emoji and script joiners and the presentation selectors are kept: text needs them.
        XCTAssertEqual(
            SafeText.escaped("👩\u{200d}💻 ☕\u{fe0f} می\u{200c}خواهم", max: 100), "👩\u{200d}💻 ☕\u{fe0f} می\u{200c}خواهم")
        XCTAssertTrue(SafeText.isClean("a\nb", keepingNewlines: true))
        XCTAssertFalse(SafeText.isClean("a\nb"))
        // JSON keeps such a name exact, as `\u` escapes; past U+FFFF as a surrogate pair.
        XCTAssertEqual(JSONObject.quote("a\u{feff}b\u{e0041}"), #""a\ufeffb\udb40\udc41""#)
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

    func test_needsEscape_agreesWithEscape_andIsClean_forEveryScalar() {
        for v in UInt32(0)..<0x11_0000 {
            guard let s = Unicode.Scalar(v) else { continue }
            // The byte-level check agrees, the scalar alone and between others.
            let alone = String(Character(s))
            XCTAssertEqual(SafeText.isClean(alone), !SafeText.needsEscape(s), "U+\(String(v, radix: 16))")
            XCTAssertEqual(SafeText.isClean("a→" + alone + "é"), !SafeText.needsEscape(s), "U+\(String(v, radix: 16))")
            XCTAssertEqual(SafeText.needsEscape(s), SafeText.escape(s) != nil, "U+\(String(v, radix: 16))")
            if let e = SafeText.escape(s) {
                XCTAssertTrue(e.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, e)
            }
        }
    }
}
