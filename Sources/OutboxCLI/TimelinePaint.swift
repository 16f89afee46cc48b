import OutboxCore
import OutboxUI

/// The text timeline's spans as a terminal shows them: in a theme's colours
/// (the roles the live screen gives states, log sources and checks), or plain.
struct TimelinePaint {
    /// nil: no colour (NO_COLOR, or not a terminal).
    let theme: Theme?

    /// The default theme's colours (the live screen's), or none.
    init(colour: Bool) {
        theme = colour ? Theme.builtin("default") : nil
    }

    func render(_ spans: [TimelineSpan]) -> String {
        guard let theme else { return spans.map(\.text).joined() }
        var out = ""
        for s in spans {
            guard let role = TimelinePaint.role(s.style) else {
                out += s.text
                continue
            }
            out += TimelinePaint.sgr(theme.style(role)) + s.text + "\u{1b}[0m"
        }
        return out
    }

    static func role(_ style: TimelineStyle) -> Role? {
        switch style {
        case .plain: return nil
        case .time, .rule: return .dim
        case .state(let s): return AppView.stateRole(s)
        case .dropped: return .stateDropped
        case .source(let l):
            switch l {
            case .sdk: return nil
            case .onError: return .logError
            case .completion: return .logCompletion
            case .backend: return .logBackend
            case .outbox: return .logOutbox
            }
        case .ok: return .timelineOk
        case .failed: return .timelineFail
        }
    }

    /// The SGR sequence of a style: 30-37/90-97 and 40-47/100-107 for the 16
    /// colours, 38;5;N and 48;5;N for the rest.
    static func sgr(_ st: Style) -> String {
        var codes = ["0"]
        if st.bold { codes.append("1") }
        if st.dim { codes.append("2") }
        if st.underline { codes.append("4") }
        if st.reverse { codes.append("7") }
        func color(_ c: ThemeColor, base: Int, bright: Int, ext: Int) {
            guard case .indexed(let n) = c else { return }
            if n < 8 {
                codes.append(String(base + n))
            } else if n < 16 {
                codes.append(String(bright + n - 8))
            } else {
                codes.append("\(ext);5;\(n)")
            }
        }
        color(st.fg, base: 30, bright: 90, ext: 38)
        color(st.bg, base: 40, bright: 100, ext: 48)
        return "\u{1b}[" + codes.joined(separator: ";") + "m"
    }
}
