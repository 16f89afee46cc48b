/// Text from outside Outbox (request names, attribute values, theme names, file
/// paths, error text) made safe to show on a terminal or write to a text file.
///
/// Such text may hold bytes a terminal obeys: ESC starts a sequence that can set
/// the window title, move the cursor or redefine keys; BEL rings; CR and the
/// line separators rewrite a line; the bidi overrides make a line read in another
/// order than it is stored. Each of these is shown as a visible escape instead:
///
/// | scalar | shown as |
/// |---|---|
/// | tab, line feed, carriage return | `\t`, `\n`, `\r` |
/// | other C0 controls U+0000–U+001F, DEL U+007F | `\x1b` (two lowercase hex digits) |
/// | C1 controls U+0080–U+009F | `\u{9b}` |
/// | bidi marks and overrides: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 | `\u{202e}` |
/// | line and paragraph separators U+2028, U+2029 | `\u{2028}` |
/// | invisible characters (below) | `\u{feff}`, `\u{200b}` |
///
/// The invisible characters are Unicode's default-ignorable code points, which
/// a terminal draws as nothing: the byte-order mark U+FEFF, the zero-width space
/// U+200B, the word joiner and invisible operators U+2060–U+206F, the soft hyphen
/// U+00AD, the Hangul fillers, the variation selectors U+FE00–U+FE0D, the tags
/// U+E0000–U+E0FFF and the rest of that property (`isInvisible`). Shown as
/// themselves, `a\u{feff}b` and `ab` look the same, and a "did you mean `profile`?"
/// for a word that starts with a byte-order mark reads as nonsense (issue 22).
/// Four are kept because text needs them and they change what is drawn: the
/// joiners U+200C and U+200D (emoji sequences such as 👩‍💻, Persian and Indic
/// scripts) and the presentation selectors U+FE0E and U+FE0F (☕︎ against ☕️).
///
/// Everything else, backslashes included, is kept as it is. An escape is
/// printable ASCII, so escaping twice changes nothing: `escaped(escaped(s)) ==
/// escaped(s)` when nothing is cut. The escapes are for reading, not a format to
/// parse back: a name that really holds the four characters `\x1b` looks the same.
public enum SafeText {
    /// Whether a scalar is shown as an escape rather than as itself.
    @inlinable
    public static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v >= 0x20 && v < 0x7F { return false }  // printable ASCII: the common case
        if v < 0x20 || (v >= 0x7F && v <= 0x9F) { return true }
        if v < 0xAD { return false }  // Latin-1 up to the soft hyphen
        switch v {
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return isInvisible(v)
        }
    }

    /// Whether a scalar is drawn as nothing though it is not a control: the
    /// default-ignorable code points of Unicode (DerivedCoreProperties.txt), less
    /// the joiners U+200C, U+200D and the presentation selectors U+FE0E, U+FE0F.
    /// Listed here rather than asked of `Unicode.Scalar.Properties`, so that what
    /// is escaped does not change with the toolchain's Unicode version.
    @inlinable
    public static func isInvisible(_ v: UInt32) -> Bool {
        switch v {
        case 0x00AD, 0x034F, 0x115F...0x1160, 0x17B4...0x17B5, 0x180B...0x180F, 0x200B, 0x200E...0x200F,
            0x202A...0x202E, 0x2060...0x206F, 0x3164, 0xFE00...0xFE0D, 0xFEFF, 0xFFA0, 0xFFF0...0xFFF8,
            0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0000...0xE0FFF:
            return true
        default: return false
        }
    }

    /// Whether no scalar of `s` needs an escape (line feeds apart, with
    /// `keepingNewlines`). Read as UTF-8 bytes: only the lead bytes of the
    /// blocks that hold such scalars are decoded, so a line of ASCII and `→`, the
    /// timeline's, costs one pass over its bytes (stdout is checked line by line,
    /// `Console.print`).
    public static func isClean(_ s: String, keepingNewlines: Bool = false) -> Bool {
        if let clean = s.utf8.withContiguousStorageIfAvailable({ isClean($0, keepingNewlines: keepingNewlines) }) {
            return clean
        }
        return !s.unicodeScalars.contains { !(keepingNewlines && $0 == "\n") && needsEscape($0) }
    }

    static func isClean(_ p: UnsafeBufferPointer<UInt8>, keepingNewlines: Bool) -> Bool {
        let n = p.count
        var i = 0
        while i < n {
            let b = p[i]
            if b < 0x80 {
                if (b < 0x20 && !(keepingNewlines && b == 0x0A)) || b == 0x7F { return false }
                i += 1
                continue
            }
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            guard i + length <= n else { return false }  // (a String is valid UTF-8: not reached)
            let look: Bool
            switch b {
            // The leads of C1, U+00AD, U+034F, U+061C, U+115F–U+180F, U+3164, U+FE00–U+FFF8, planes 1 and 14.
            case 0xC2, 0xCD, 0xD8, 0xE1, 0xE3, 0xEF, 0xF0, 0xF3: look = true
            // U+2000–U+207F (the bidi controls, separators, U+200B, U+2060–U+206F); not `→`'s U+2190.
            case 0xE2: look = p[i + 1] == 0x80 || p[i + 1] == 0x81
            default: look = false
            }
            if look {
                var v = UInt32(b) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                for k in 1..<length { v = v << 6 | UInt32(p[i + k] & 0x3F) }
                if let u = Unicode.Scalar(v), needsEscape(u) { return false }
            }
            i += length
        }
        return true
    }

    /// How one scalar is shown: nil when it is shown as itself, else its escape
    /// (printable ASCII).
    public static func escape(_ s: Unicode.Scalar) -> String? {
        guard needsEscape(s) else { return nil }
        switch s.value {
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0..<0x80: return "\\x" + hex(s.value, digits: 2)
        default: return "\\u{" + hex(s.value, digits: 1) + "}"
        }
    }

    /// `s` with every scalar that needs it escaped, and cut once the result holds
    /// `max` scalars: what is left out is counted in a marker, `…[+N chars]`, N
    /// being the scalars of `s` not shown. An escape is never cut in half. With no
    /// cut the result is exactly `s` escaped.
    public static func escaped(_ s: String, max: Int) -> String {
        var out = String.UnicodeScalarView()
        var used = 0
        var i = s.unicodeScalars.startIndex
        let end = s.unicodeScalars.endIndex
        while i < end {
            let c = s.unicodeScalars[i]
            if let e = escape(c) {
                let n = e.utf8.count  // an escape is ASCII: bytes are scalars
                if used + n > max { break }
                out.append(contentsOf: e.unicodeScalars)
                used += n
            } else {
                if used + 1 > max { break }
                out.append(c)
                used += 1
            }
            s.unicodeScalars.formIndex(after: &i)
        }
        guard i < end else { return String(out) }
        let left = s.unicodeScalars[i...].count
        return String(out) + "…[+\(left) chars]"
    }

    static func hex(_ v: UInt32, digits: Int) -> String {
        let d = Array("0123456789abcdef".unicodeScalars)
        var s = String.UnicodeScalarView()
        var v = v
        repeat {
            s.insert(d[Int(v & 0xF)], at: s.startIndex)
            v >>= 4
        } while v != 0
        while s.count < digits { s.insert("0", at: s.startIndex) }
        return String(s)
    }
}

extension SafeText {
    /// Text made safe inside XML and HTML (JUnit reports, timeline pictures).
    /// XML 1.0 forbids most control characters even as character references, and
    /// readers normalise tabs and line ends in attributes: every scalar the
    /// timeline escapes for people (C0, DEL, C1, bidi overrides, line
    /// separators, tab and line ends) is written as that same visible escape
    /// (`\x1b`, `\t`, `\u{202e}`), and so are U+FFFE and U+FFFF, which XML forbids
    /// too; `keepingNewlines` leaves `\n` as it is (element text, not attributes).
    /// Then `&`, `<`, `>`, `"` and `'` become entities (`&#39;`, which HTML and XML
    /// both read). Nothing is cut. An escape is for reading: a name that really
    /// holds the four characters `\x1b` reads the same.
    public static func xml(_ s: String, keepingNewlines: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if let e = escape(u), !(keepingNewlines && u == "\n") {
                out += e
                continue
            }
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{FFFE}", "\u{FFFF}": out += "\\u{" + String(u.value, radix: 16) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
