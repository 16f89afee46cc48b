/// The characters the view draws with: Unicode when the locale is UTF-8, ASCII otherwise.
public struct Glyphs: Sendable {
    public var hLine, vLine, teeDown, teeUp, topLeft, topRight, bottomLeft, bottomRight, arrow, play, dot, check, cross2, ellipsis, sep, none: String
    public var tlAttempt, tlOk, tlFail, tlWait, tlOffline, tlQueued, tlDropped, tlNow, tlPending: String

    public static let unicode = Glyphs(
        hLine: "─", vLine: "│", teeDown: "┬", teeUp: "┴", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        arrow: "→", play: "▶", dot: "●",
        check: "✓", cross2: "✗", ellipsis: "…", sep: "·", none: "—",
        tlAttempt: "◌", tlOk: "●", tlFail: "✗", tlWait: "─", tlOffline: "░", tlQueued: "▸", tlDropped: "■", tlNow: "│",
        tlPending: "·")

    public static let ascii = Glyphs(
        hLine: "-", vLine: "|", teeDown: "+", teeUp: "+", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        arrow: "->", play: ">", dot: "*",
        check: "v", cross2: "x", ellipsis: "~", sep: "-", none: "-",
        tlAttempt: "o", tlOk: "*", tlFail: "x", tlWait: "-", tlOffline: ":", tlQueued: ">", tlDropped: "#", tlNow: "|",
        tlPending: ".")
}
