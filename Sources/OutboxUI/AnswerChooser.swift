import OutboxCore

/// What a key in the backend chooser did (`AnswerChoice.step`): the simulator's
/// `x` and serve's live screen act on it, each on its own backend.
public enum ChooserStep: Equatable, Sendable {
    /// Nothing: the key means nothing here.
    case unchanged
    /// Still choosing, with these choices so far.
    case choosing(AnswerChoice)
    case cancelled
    /// A key the chooser does not take here: say this; the choices stay.
    case hint(String)
    /// Chosen: plan this answer, this often, for these requests.
    case plan(Answer, ServerRepeat, ServerTarget)
}

extension AnswerChoice {
    /// A key in the backend chooser: an answer's letter (`AppModel.answerChoices`),
    /// then how often (`1`, `3`, `5`, `a`, or `%` and a typed percent); `R` a
    /// status's Retry-After; `r` / `k` for the selected request's name / kind only
    /// (`selected`: its name and kind, nil when none is selected).
    public func step(_ key: Key, selected: @autoclosure () -> (name: String, kind: String)?) -> ChooserStep {
        var choice = self
        if key == .escape || (key == .char("q") && choice.percent == nil) { return .cancelled }
        if let typed = choice.percent, let answer = choice.answer {
            switch key {
            case .enter:
                guard let bp = ServerRepeat.percent(typed + "%") else {
                    return .hint("type a percent from 0 to 100 (at most two decimals), then Enter; Esc cancels")
                }
                return .plan(answer, .chance(bp), choice.target)
            case .backspace, .delete: choice.percent = String(typed.dropLast())
            case .tab:
                let i = AppModel.percentChoices.firstIndex(of: typed).map { $0 + 1 } ?? 0
                choice.percent = AppModel.percentChoices[i % AppModel.percentChoices.count]
            case .char(let c) where (c.properties.numericType != nil && c.isASCII) || c == ".":
                if typed.count < 6 { choice.percent = typed + String(Character(c)) }
            default:
                return .hint("a percent: digits and `.`, Tab for 10/25/50/75, Enter; Esc cancels")
            }
            return .choosing(choice)
        }
        guard case .char(let c) = key else { return .unchanged }
        if c == "r" || c == "k" {
            guard let facts = selected() else { return .hint("no request is selected: j/k selects one; Esc cancels") }
            let t: ServerTarget = c == "r" ? .name(facts.name) : .kind(facts.kind)
            choice.target = choice.target == t ? .all : t
            return .choosing(choice)
        }
        guard let answer = choice.answer else {
            guard let pick = AppModel.answerChoices.first(where: { $0.key == c }) else {
                return .hint("no answer on `\(c)`; r or k: for the selected request; Esc cancels")
            }
            if pick.answer == .ok { return .plan(.ok, .times(1), choice.target) }
            choice.answer = pick.answer
            return .choosing(choice)
        }
        if c == "R" {
            // A status answer's Retry-After header: 1s, 10s, 60s, then none.
            guard let next = answer.nextRetryAfter else {
                return .hint("retry-after goes with a status answer (100-599), not \(answer.word)")
            }
            choice.answer = next
            return .choosing(choice)
        }
        let rep: ServerRepeat
        switch c {
        case "1": rep = .times(1)
        case "3": rep = .times(3)
        case "5": rep = .times(5)
        case "a": rep = .always
        case "%":
            choice.percent = ""
            return .choosing(choice)
        default:
            return .hint(
                "1, 3, 5 times, a(lways) or % a chance; R: a Retry-After; r or k: for the selected request; Esc cancels"
            )
        }
        return .plan(answer, rep, choice.target)
    }
}

extension Answer {
    /// `R` in a chooser: a status answer with its next Retry-After (1s, 10s, 60s,
    /// then none again); nil for an answer that is not a status.
    public var nextRetryAfter: Answer? {
        guard case .status(let s) = withoutRetryAfter else { return nil }
        let all = AppModel.retryAfterChoices
        let next = retryAfter.flatMap { all.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        return next < all.count ? .retryAfter(s, all[next]) : .status(s)
    }
}
