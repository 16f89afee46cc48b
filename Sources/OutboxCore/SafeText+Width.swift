/// How many terminal columns text takes.
///
/// A terminal gives most characters one column, East Asian wide and fullwidth
/// ones (漢字, ｶﾞ's fullwidth cousins, 한글) and emoji shown as emoji two, and
/// combining marks none. Counting characters instead put a name like `購入` in
/// two columns where the terminal drew four, pushing the rest of the line out of
/// its column (issue 15's notes). The ranges are Unicode's East Asian Width
/// classes W and F (UAX #11) for the blocks people write names in, plus the
/// scalars Unicode presents as emoji by default; they match what terminals'
/// `wcwidth` gives for those blocks. An escape (`SafeText.escape`) is ASCII, so a
/// control character takes the columns of its escape, never of itself.
extension SafeText {
    /// Columns one scalar takes: 0 for a combining mark or the emoji variation
    /// selector (drawn on the character before it), 2 for a wide one, else 1.
    @inlinable
    public static func columns(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v < 0x300 { return 1 }  // below the combining marks: the common case
        if s.properties.generalCategory == .nonspacingMark || v == 0xFE0F || v == 0x200D { return 0 }
        return isWide(v) ? 2 : 1
    }

    /// Whether a scalar takes two columns.
    public static func isWide(_ v: UInt32) -> Bool {
        // Fast answers for what the screen draws most: nothing is wide below
        // Hangul Jamo, nor between it and ⌚ (U+231A, the first emoji shown as
        // emoji), nor among the box drawing, blocks and shapes up to U+25FC.
        if v < 0x1100 { return false }
        if v <= 0x115F { return true }
        if v < 0x231A || (v >= 0x2500 && v <= 0x25FC) { return false }
        // Emoji shown as emoji by default (⌚, ☕, 🎉), outside the CJK blocks below.
        if let s = Unicode.Scalar(v), s.properties.isEmojiPresentation { return true }
        var lo = 0
        var hi = wideRanges.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let r = wideRanges[mid]
            if v < r.lowerBound {
                hi = mid - 1
            } else if v > r.upperBound {
                lo = mid + 1
            } else {
                return true
            }
        }
        return false
    }

    /// East Asian Wide and Fullwidth blocks, in order.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed, compatibility
        0x3400...0x4DBF,  // CJK unified ideographs extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1AFF0...0x1B2FF,  // Kana extended and supplement, Nushu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B to F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G and H
    ]

    /// Columns a string takes, each scalar as `columns(_:)` counts it.
    public static func columns(of text: String) -> Int {
        var n = 0
        for s in text.unicodeScalars {
            n += s.value >= 0x20 && s.value < 0x7F ? 1 : columns(s)
        }
        return n
    }

    /// The longest start of `text` that takes at most `width` columns.
    public static func prefix(_ text: String, columns width: Int) -> String {
        var n = 0
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            let w = columns(s)
            if n + w > width { break }
            n += w
            out.append(s)
        }
        return String(out)
    }

    /// The longest end of `text` that takes at most `width` columns.
    public static func suffix(_ text: String, columns width: Int) -> String {
        var n = 0
        var out: [Unicode.Scalar] = []
        for s in text.unicodeScalars.reversed() {
            let w = columns(s)
            if n + w > width { break }
            n += w
            out.append(s)
        }
        // A combining mark does not begin the end: it would join what goes before it.
        while let s = out.last, columns(s) == 0 { out.removeLast() }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: out.reversed())
        return String(view)
    }
}
