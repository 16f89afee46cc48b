import OutboxCore

/// A color in a theme: the terminal's default, one of the 8 basic colors, or 0-255.
public enum ThemeColor: Equatable, Sendable {
    case terminalDefault
    case indexed(Int)

    static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    static func parse(_ word: String) -> ThemeColor? {
        if word == "default" || word == "-" { return .terminalDefault }
        if let i = names.firstIndex(of: word) { return .indexed(i) }
        if word.hasPrefix("bright-"), let i = names.firstIndex(of: String(word.dropFirst(7))) { return .indexed(i + 8) }
        if let n = Int(word), (0...255).contains(n) { return .indexed(n) }
        return nil
    }
}

/// How one role looks.
public struct Style: Equatable, Sendable {
    public var fg: ThemeColor = .terminalDefault
    public var bg: ThemeColor = .terminalDefault
    public var bold = false, dim = false, reverse = false, underline = false
    public init() {}
}

/// A theme: a table from roles to styles, read from a `.theme` text file:
/// `role fg bg [bold] [dim] [reverse] [underline]`, one a line, `#` comments.
public struct Theme: Equatable, Sendable {
    public let name: String
    public private(set) var styles: [Role: Style]
    /// Uses no colors at all (attributes only).
    public var isMonochrome: Bool {
        styles.values.allSatisfy { $0.fg == .terminalDefault && $0.bg == .terminalDefault }
    }

    public func style(_ role: Role) -> Style { styles[role] ?? styles[.normal] ?? Style() }

    /// Parses a theme; the error names the file and line and what was expected.
    public static func parse(_ text: String, name: String, file: String) -> Result<Theme, ThemeError> {
        var styles: [Role: Style] = [:]
        var n = 0
        // "\r\n" is one Character in Swift: split on it too, so CRLF files read as lines.
        // A byte-order mark before the first line is not part of it (TextInput).
        for raw in TextInput.droppingBOM(text).split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        {
            n += 1
            let code = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let w = code.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if w.isEmpty { continue }
            func fail(_ m: String) -> Result<Theme, ThemeError> {
                .failure(ThemeError(file: file, line: n, message: m))
            }
            guard let role = Role(rawValue: w[0]) else {
                return fail(
                    "unknown role `\(w[0])`, expected one of: " + Role.allCases.map(\.rawValue).joined(separator: " "))
            }
            guard w.count >= 3 else {
                return fail(
                    "`\(w[0])` needs a foreground and a background, expected `role fg bg [bold] [dim] [reverse] [underline]`"
                )
            }
            var s = Style()
            guard let fg = ThemeColor.parse(w[1]) else {
                return fail("bad color `\(w[1])`, expected default, a color name (red, bright-blue, ...) or 0-255")
            }
            guard let bg = ThemeColor.parse(w[2]) else {
                return fail("bad color `\(w[2])`, expected default, a color name (red, bright-blue, ...) or 0-255")
            }
            s.fg = fg
            s.bg = bg
            for a in w.dropFirst(3) {
                switch a {
                case "bold": s.bold = true
                case "dim": s.dim = true
                case "reverse": s.reverse = true
                case "underline": s.underline = true
                default: return fail("unknown attribute `\(a)`, expected bold, dim, reverse or underline")
                }
            }
            if styles[role] != nil { return fail("role `\(role.rawValue)` is set twice") }
            styles[role] = s
        }
        guard styles[.normal] != nil else {
            return .failure(
                ThemeError(
                    file: file, line: max(n, 1),
                    message: "no `normal` role, expected every theme to set at least `normal`"))
        }
        return .success(Theme(name: name, styles: styles))
    }

    /// The monochrome theme: attributes only; used with NO_COLOR or a terminal without colors.
    public static var monochrome: Theme { builtin("monochrome")! }

    /// A theme shipped with Outbox, by name.
    public static func builtin(_ name: String) -> Theme? {
        guard let text = BuiltinThemes.texts[name],
            case .success(let t) = parse(text, name: name, file: "themes/\(name).theme")
        else { return nil }
        return t
    }
}

/// Bad input in a theme file (the one `Diagnostic` type of every reader).
public typealias ThemeError = Diagnostic
