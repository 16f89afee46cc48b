/// What a part of the screen is, never a color: themes map roles to colors.
public enum Role: String, CaseIterable, Sendable {
    case normal, dim, header, headerAccent, border, paneTitle, paneTitleFocused
    case tab, tabActive, columnHeader, rowSelected
    case statePending, stateInFlight, stateRetrying, stateQueued, stateDelivered, stateDropped
    case online, offline, consentGranted, consentDenied, consentUndecided
    case timelineAxis, timelineAttempt, timelineOk, timelineFail, timelineWait, timelineOffline, timelineFinal, timelineNow
    case logSDK, logWarning, logError, logCompletion, logBackend, logOutbox
    case banner, notice, error, statusBar, statusKey, help, helpKey, commandLine, overlay
}

/// One cell of the screen: a character and its role.
public struct Cell: Equatable, Sendable {
    public var char: Unicode.Scalar
    public var role: Role
    public init(_ char: Unicode.Scalar, _ role: Role) {
        self.char = char
        self.role = role
    }
    public static let blank = Cell(" ", .normal)
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
/// cells that changed. Every scalar takes one column.
public struct ScreenBuffer: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Writes text from (x, y), clipped to `limit` columns and the screen; returns the next x.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: Role, limit: Int = Int.max) -> Int {
        guard y >= 0, y < height else { return x }
        var cx = x
        let end = min(width, limit == Int.max ? width : x + limit)
        for s in text.unicodeScalars {
            if cx >= end { break }
            if s.properties.generalCategory == .nonspacingMark || s.value == 0xFE0F { continue }
            if cx >= 0 { cells[y * width + cx] = Cell(s.value < 0x20 ? " " : s, role) }
            cx += 1
        }
        return cx
    }

    /// Fills a rectangle with one character and role.
    public mutating func fill(_ r: Rect, _ char: Unicode.Scalar = " ", role: Role) {
        for yy in max(0, r.y)..<min(height, r.maxY) {
            for xx in max(0, r.x)..<min(width, r.maxX) { cells[yy * width + xx] = Cell(char, role) }
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
            for x in 0..<width { s.append(cells[y * width + x].char) }
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

    /// The rows that differ from another buffer of the same size.
    public func changedCells(since old: ScreenBuffer) -> Int {
        guard old.width == width, old.height == height else { return cells.count }
        var n = 0
        for i in cells.indices where cells[i] != old.cells[i] { n += 1 }
        return n
    }
}
