/// The characters the view draws with: Unicode when the locale is UTF-8, ASCII otherwise.
/// (A failed answer is `X` in ASCII, not `x`: beside a cut's label, `X+30sX+60sX`
/// still reads as marks, where `x+30sx+60sx` read as one word.)
public struct Glyphs: Sendable {
    public var hLine, vLine, teeDown, teeUp, topLeft, topRight, bottomLeft, bottomRight, arrow, play, dot, check,
        cross2, ellipsis, sep, none: String
    public var tlAttempt, tlOk, tlFail, tlWait, tlOffline, tlQueued, tlDropped, tlNow, tlPending: String
    /// A row's life goes on past the timeline's left or right edge.
    public var tlMoreLeft, tlMoreRight: String

    public static let unicode = Glyphs(
        hLine: "─", vLine: "│", teeDown: "┬", teeUp: "┴", topLeft: "┌", topRight: "┐", bottomLeft: "└",
        bottomRight: "┘",
        arrow: "→", play: "▶", dot: "●",
        check: "✓", cross2: "✗", ellipsis: "…", sep: "·", none: "—",
        tlAttempt: "◌", tlOk: "●", tlFail: "✗", tlWait: "─", tlOffline: "░", tlQueued: "▸", tlDropped: "■", tlNow: "│",
        tlPending: "·", tlMoreLeft: "‹", tlMoreRight: "›")

    public static let ascii = Glyphs(
        hLine: "-", vLine: "|", teeDown: "+", teeUp: "+", topLeft: "+", topRight: "+", bottomLeft: "+",
        bottomRight: "+",
        arrow: "->", play: ">", dot: "*",
        check: "v", cross2: "x", ellipsis: "~", sep: "-", none: "-",
        tlAttempt: "o", tlOk: "*", tlFail: "X", tlWait: "-", tlOffline: ":", tlQueued: ">", tlDropped: "#", tlNow: "|",
        tlPending: ".", tlMoreLeft: "<", tlMoreRight: ">")
}

extension Glyphs {
    /// Whether these are the ASCII glyphs (the terminal is not UTF-8).
    public var isASCII: Bool { hLine == "-" }

    /// The nearest ASCII of a character the view or the model's text uses
    /// (typography, arrows, ×, the speeds' fractions, the glyphs themselves);
    /// anything else is `?`. One table, used by `ScreenBuffer.put` on ASCII
    /// screens and by the terminal as its last guard.
    public static func asciiFold(_ s: Unicode.Scalar) -> String {
        if s.isASCII { return String(Character(s)) }
        return asciiTable[s.value] ?? "?"
    }

    static let asciiTable: [UInt32: String] = [
        0xA0: " ", 0xB1: "+-", 0xB7: "-", 0xD7: "x", 0xBC: "0.25", 0xBD: "0.5", 0x2152: "0.1", 0x2013: "-", 0x2014: "-",
        0x2018: "'", 0x2019: "'", 0x201C: "\"", 0x201D: "\"", 0x2022: "*", 0x2026: "~", 0x2192: "->", 0x2190: "<-",
        0x2039: "<", 0x203A: ">",
        0x2191: "^", 0x2193: "v", 0x2260: "!=", 0x2264: "<=", 0x2265: ">=", 0x2248: "~",
        0x2500: "-", 0x2502: "|", 0x250C: "+", 0x2510: "+", 0x2514: "+", 0x2518: "+", 0x252C: "+", 0x2534: "+",
        0x251C: "+", 0x2524: "+", 0x253C: "+", 0x2550: "=", 0x2551: "|", 0x2504: "-", 0x2506: "|", 0x2508: "-",
        0x250A: "|",
        0x25CF: "*", 0x25CC: "o", 0x25A0: "#", 0x2591: ":", 0x25B8: ">", 0x25B6: ">", 0x23F8: "||",
        0x2713: "v", 0x2717: "x", 0x2714: "v", 0x2718: "x",
    ]
}
