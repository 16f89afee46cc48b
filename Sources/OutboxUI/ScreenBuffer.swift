import OutboxCore

/// What a part of the screen is, never a color: themes map roles to colors.
public enum Role: String, CaseIterable, Sendable {
    case normal, dim, header, headerAccent, border, paneTitle, paneTitleFocused
    case tab, tabActive, columnHeader, rowSelected
    case statePending, stateInFlight, stateRetrying, stateQueued, stateDelivered, stateDropped
    case online, offline, consentGranted, consentDenied, consentUndecided
    case timelineAxis, timelineAttempt, timelineOk, timelineFail, timelineWait, timelineOffline, timelineFinal,
        timelineNow
    case logSDK, logWarning, logError, logCompletion, logBackend, logOutbox
    case banner, notice, error, statusBar, statusKey, help, helpKey, commandLine, overlay
}

/// One cell of the screen: a character and its role. A cell never holds a
/// character the terminal would obey rather than show (`SafeText.needsEscape`):
/// text is escaped by `ScreenBuffer.put`, and a cell made from such a character
/// directly holds `?` instead.
public struct Cell: Equatable, Sendable {
    public private(set) var char: Unicode.Scalar
    public var role: Role
    public init(_ char: Unicode.Scalar, _ role: Role) {
        self.char = SafeText.needsEscape(char) ? "?" : char
        self.role = role
    }
    /// A cell from a character already known to be safe (`put`'s fast path).
    init(checked char: Unicode.Scalar, _ role: Role) {
        self.char = char
        self.role = role
    }
    public static let blank = Cell(" ", .normal)
    /// The second column of a wide character (`SafeText.isWide`): the cell
    /// before it holds the character, and the terminal draws nothing here.
    static let tailMark: Unicode.Scalar = "\u{0}"
    public var isWideTail: Bool { char == Cell.tailMark }
}

/// A rectangle on the screen.
public struct Rect: Equatable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }
    public var maxY: Int { y + height }
    public var maxX: Int { x + width }
}

/// The in-memory screen the view draws into; the terminal layer sends only the
/// cells that changed. A scalar takes the columns a terminal gives it
/// (`SafeText.columns`): a wide one (漢, 🎉) fills its cell and the next, which
/// holds `Cell.tailMark`; a combining mark takes none and is left out.
public struct ScreenBuffer: Equatable, Sendable {
    public let width: Int
    public private(set) var height: Int
    public private(set) var cells: [Cell]
    /// Drawn in the last column of text that `put` had to cut (`Glyphs.ellipsis`).
    public var cutMark: Unicode.Scalar = "…"
    /// An ASCII screen (the terminal is not UTF-8): every character that reaches a
    /// cell is folded to ASCII (`Glyphs.asciiFold`: `×` is `x`, `→` is `->`), so
    /// no cell holds a byte the terminal cannot show, whatever text the model hands over.
    public var ascii = false
    /// Whether a wide character was ever drawn here: until one is, no cell is
    /// half of one, and writes skip the look at their neighbours.
    private var hasWide = false

    public static func == (a: ScreenBuffer, b: ScreenBuffer) -> Bool {
        a.width == b.width && a.height == b.height && a.cutMark == b.cutMark && a.ascii == b.ascii
            && a.cells == b.cells
    }

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// Blank rows added at the bottom, to `height` rows in all.
    mutating func grow(toHeight h: Int) {
        guard h > height else { return }
        cells.append(contentsOf: repeatElement(.blank, count: (h - height) * width))
        height = h
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            var c = newValue
            if ascii && !c.char.isASCII { c = Cell(Glyphs.asciiFold(c.char).unicodeScalars.first!, c.role) }
            // One cell is one column: a wide character set here is drawn as `?`.
            if !c.char.isASCII && SafeText.isWide(c.char.value) { c = Cell("?", c.role) }
            if hasWide { loosen(y * width + x) }
            cells[y * width + x] = c
        }
    }

    /// Before cell `i` is written: when it is half of a wide character, the
    /// other half becomes a blank, so no wide character is left half drawn.
    @inline(__always)
    mutating func loosen(_ i: Int) {
        if cells[i].isWideTail {
            if i > 0 { cells[i - 1] = Cell(checked: " ", cells[i - 1].role) }
        } else if i + 1 < cells.count, cells[i + 1].isWideTail {
            cells[i + 1] = Cell(checked: " ", cells[i + 1].role)
        }
    }

    /// Whether cell `i` or the one after it is part of a wide character (the
    /// fast path of `put` skips `loosen` when neither is).
    @inline(__always)
    func touchesWide(_ i: Int) -> Bool {
        cells[i].isWideTail || (i + 1 < cells.count && cells[i + 1].isWideTail)
    }

    /// Writes text from (x, y), clipped to `limit` columns and the screen; returns the next x.
    ///
    /// The one way text reaches the screen, so the one place it is made safe: a
    /// control or bidi character is drawn as its escape (`SafeText`: ESC as `\x1b`),
    /// and text cut short for lack of room ends in `cutMark`, so a long name is
    /// seen to be longer. Combining marks and the emoji variation selector take no
    /// column and are left out (every cell holds one scalar). The work done is
    /// bounded by the room, not by the length of the text.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: Role, limit: Int = Int.max) -> Int {
        guard y >= 0, y < height else { return x }
        var cx = x
        let end = limit >= width - x ? width : x + Swift.max(0, limit)
        guard cx < end else { return cx }
        let row = y * width
        // Scalars looked at after the room is full or among marks: past this the
        // text is taken to go on, and is marked as cut.
        var budget = 4 * (end - x) + 16
        var cut = false
        scan: for s in text.unicodeScalars {
            budget -= 1
            if budget < 0 {
                cut = true
                break
            }
            let v = s.value
            if v < 0x20 || v >= 0x7F {  // printable ASCII, the common case, needs no look
                if SafeText.needsEscape(s) {
                    for c in SafeText.escape(s)!.unicodeScalars {
                        if cx >= end {
                            cut = true
                            break scan
                        }
                        if cx >= 0 { set(row + cx, Cell(checked: c, role)) }
                        cx += 1
                    }
                    continue
                }
                // Nonspacing marks start at U+0300: below it, no lookup.
                if v >= 0x300 && SafeText.columns(s) == 0 { continue }
                if ascii && v >= 0x80 {
                    for c in Glyphs.asciiFold(s).unicodeScalars {
                        if cx >= end {
                            cut = true
                            break scan
                        }
                        if cx >= 0 { set(row + cx, Cell(checked: c, role)) }
                        cx += 1
                    }
                    continue
                }
                if v >= 0x1100 && SafeText.isWide(v) {
                    // Two columns, or none: half a wide character is never drawn.
                    if cx + 1 >= end {
                        cut = true
                        break
                    }
                    hasWide = true
                    if cx >= 0 {
                        set(row + cx, Cell(checked: s, role))
                        set(row + cx + 1, Cell(checked: Cell.tailMark, role))
                    } else if cx == -1 {
                        set(row, Cell(checked: " ", role))
                    }
                    cx += 2
                    continue
                }
            }
            if cx >= end {
                // Out of room: spaces may trail off unmarked; anything else is cut.
                if s == " " { continue }
                cut = true
                break
            }
            if cx >= 0 { set(row + cx, Cell(checked: s, role)) }
            cx += 1
        }
        if cut {
            // Past the room: the last column shows the mark. Stopped early (too many
            // marks, or a wide character with one column left): the mark goes after
            // what was drawn.
            let mark = ascii && !cutMark.isASCII ? Glyphs.asciiFold(cutMark).unicodeScalars.first! : cutMark
            if cx < end {
                if cx >= 0 { set(row + cx, Cell(mark, role)) }
                cx += 1
            } else if cx > Swift.max(x, 0) {
                set(row + cx - 1, Cell(mark, role))
            }
        }
        return cx
    }

    /// Writes one cell, never leaving half a wide character beside it.
    @inline(__always)
    private mutating func set(_ i: Int, _ c: Cell) {
        if hasWide && touchesWide(i) { loosen(i) }
        cells[i] = c
    }

    /// Fills a rectangle with one character and role.
    public mutating func fill(_ r: Rect, _ char: Unicode.Scalar = " ", role: Role) {
        let folded = ascii && !char.isASCII ? Glyphs.asciiFold(char).unicodeScalars.first! : char
        let char: Unicode.Scalar = !folded.isASCII && SafeText.isWide(folded.value) ? "?" : folded
        for yy in max(0, r.y)..<min(height, r.maxY) {
            for xx in max(0, r.x)..<min(width, r.maxX) { set(yy * width + xx, Cell(char, role)) }
        }
    }

    /// Changes the role of a rectangle, keeping its characters.
    public mutating func paint(_ r: Rect, role: Role) {
        for yy in max(0, r.y)..<min(height, r.maxY) {
            for xx in max(0, r.x)..<min(width, r.maxX) { cells[yy * width + xx].role = role }
        }
    }

    /// The text of each row, trailing spaces kept: what a snapshot compares.
    public var lines: [String] {
        (0..<height).map { y in
            var s = String.UnicodeScalarView()
            for x in 0..<width where !cells[y * width + x].isWideTail { s.append(cells[y * width + x].char) }
            return String(s)
        }
    }

    /// The whole screen as text, rows trimmed on the right.
    public var text: String {
        lines.map { l in
            var t = Substring(l)
            while t.last == " " { t.removeLast() }
            return String(t)
        }.joined(separator: "\n")
    }

    /// One letter per cell for its role, for snapshot tests of the role layer.
    public func roleLayer(_ legend: [Role: Character]) -> String {
        (0..<height).map { y in
            String((0..<width).map { x in legend[cells[y * width + x].role] ?? "." })
        }.joined(separator: "\n")
    }

    /// How many cells differ from another buffer of the same size (every cell
    /// when the sizes differ).
    public func changedCells(since old: ScreenBuffer) -> Int {
        guard old.width == width, old.height == height else { return cells.count }
        var n = 0
        for i in cells.indices where cells[i] != old.cells[i] { n += 1 }
        return n
    }
}
