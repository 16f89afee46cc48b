/// What every reader of a text file Outbox takes (scenarios and recordings,
/// profiles, themes) does before its first line.
public enum TextInput {
    /// UTF-8's byte-order mark, EF BB BF: the scalar U+FEFF.
    public static let byteOrderMark: Unicode.Scalar = "\u{FEFF}"

    /// How many bytes of `bytes` a byte-order mark at the start takes: 3 or 0.
    /// Windows editors write one; it says nothing in UTF-8, and kept it is an
    /// invisible first character that made `profile` an unknown word (issue 22).
    /// Only the very first one is skipped: one elsewhere is text, and
    /// `SafeText` shows it as `\u{feff}`.
    public static func bomLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// `text` without a byte-order mark at its start.
    public static func droppingBOM(_ text: String) -> Substring {
        text.unicodeScalars.first == byteOrderMark ? Substring(text.unicodeScalars.dropFirst()) : text[...]
    }
}
