/// Escapes inside double quotes, beyond `\"` and `\\`: `\t`, `\n`, `\r`, `\xHH`
/// (two hex digits, U+0000-U+00FF) and `\u{H...}` (one to six hex digits, a
/// Unicode scalar). They are the escapes `SafeText` shows, so a name holding a
/// control character is written by a recording as it is shown, and reads back
/// the same. A backslash before anything else stands for that character, as it
/// always did (`"\q"` is `q`).
public enum QuotedEscape {
    /// The scalar an escape stands for, given the character after the backslash
    /// (`first`, 0 when not one scalar) and a look at the ones after it (`next(0)`
    /// is the one after `first`); `used` is how many of those it takes.
    /// nil: not one of these escapes.
    @inline(__always)
    static func decode(_ first: UInt32, next: (Int) -> UInt32?) -> (scalar: Unicode.Scalar, used: Int)? {
        func hex(_ v: UInt32?) -> UInt32? {
            guard let v else { return nil }
            switch v {
            case 0x30...0x39: return v - 0x30
            case 0x61...0x66: return v - 0x61 + 10
            case 0x41...0x46: return v - 0x41 + 10
            default: return nil
            }
        }
        switch first {
        case 0x74: return ("\t", 0)  // t
        case 0x6E: return ("\n", 0)  // n
        case 0x72: return ("\r", 0)  // r
        case 0x78:  // x
            guard let a = hex(next(0)), let b = hex(next(1)) else { return nil }
            return (Unicode.Scalar(UInt8(a << 4 | b)), 2)
        case 0x75:  // u
            guard next(0) == 0x7B else { return nil }  // {
            var v: UInt32 = 0
            var k = 1
            while let d = hex(next(k)), k <= 6 {
                v = v << 4 | d
                k += 1
            }
            guard k > 1, next(k) == 0x7D, let scalar = Unicode.Scalar(v) else { return nil }  // }
            return (scalar, k + 1)
        default: return nil
        }
    }
}
