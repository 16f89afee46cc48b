import OutboxCore

/// The list filter typed after `/`: space-separated words, each a condition,
/// and a request is listed when it meets them all (issue 12, part 5).
///
/// - `rule:LT-5`: the rule of the request's last transition (the list's `rule` column);
/// - `kind:ping`: its kind;
/// - `state:retrying`: its state (a prefix that names one state is enough: `state:ret`);
/// - `status:503`, or just `503` / `timeout` / `offline` / `network-lost` / `partial`:
///   the answer of its last attempt (the list's `last` column);
/// - `name:TEXT`, or any other word: its name contains TEXT (case-insensitive).
///
/// A value may list alternatives with commas (`state:retrying,queued`). A word
/// that cannot mean anything (`state:later`, `colour:red`) matches nothing and
/// says why in the empty list.
public struct ListFilter: Equatable, Sendable {
    public enum Field: String, Sendable { case name, rule, kind, state, status }

    public struct Term: Equatable, Sendable {
        /// The word as typed.
        public let text: String
        public let field: Field
        /// Lowercased name parts (name), or raw values / codes (the others).
        var names: [String] = []
        var codes: [Int16] = []
        /// Why the word cannot match, or nil.
        public var problem: String?
    }

    public let terms: [Term]

    /// `profiles`: the profiles on screen; a `rule:` word none of them has says so.
    public init(_ text: String, profiles: [Profile] = []) {
        terms = text.split(separator: " ").map { word in
            var t = ListFilter.term(String(word), kinds: ListFilter.kinds(of: profiles))
            if t.field == .rule && t.problem == nil && !profiles.isEmpty
                && !(profiles + Builtins.all).contains(where: { p in
                    p.rules.contains { t.names.contains(p.rule($0).id.lowercased()) }
                })
            {
                t.problem = "no rule has that ID (see docs/rules.md)"
            }
            return t
        }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// The kinds the profiles on screen make words of: the first one's, then
    /// each other's own (a kind one profile declares is known only to it).
    static func kinds(of profiles: [Profile]) -> [String] {
        var out = (profiles.first?.vocabulary ?? .builtin).kinds
        for p in profiles.dropFirst() { out += p.vocabulary.kinds.filter { !out.contains($0) } }
        return out
    }

    static let statusWords: [String: Outcome] = [
        "timeout": .timeout, "offline": .offline, "network-lost": .networkLost, "partial": .partial,
    ]

    static func outcome(_ word: String) -> Outcome? {
        if let o = statusWords[word] { return o }
        guard word.count == 3, let n = Int(word), (100...599).contains(n) else { return nil }
        return .http(n)
    }

    static func term(_ word: String, kinds: [String] = Vocabulary.builtin.kinds) -> Term {
        let lower = word.lowercased()
        guard let colon = lower.firstIndex(of: ":") else {
            if let o = outcome(lower) { return Term(text: word, field: .status, codes: [o.code]) }
            return Term(text: word, field: .name, names: [lower])
        }
        let key = String(lower[..<colon])
        let values = lower[lower.index(after: colon)...].split(separator: ",").map(String.init)
        var t: Term
        switch key {
        case "name":
            t = Term(text: word, field: .name, names: values)
        case "rule":
            // Resolved per column by its profile's rules (`Matcher`): a rule ID is the profile's data.
            t = Term(text: word, field: .rule, names: values)
        case "kind":
            t = Term(text: word, field: .kind)
            // Kept as words, resolved per column by its profile's vocabulary (`Matcher`), as
            // `rule:` is: a profile's own kinds are numbered by it.
            t.names = pick(values, kinds.enumerated().map { ($1, Int16($0)) }, &t.problem, "kind").map {
                kinds[Int($0)]
            }
        case "state":
            t = Term(text: word, field: .state)
            t.codes = pick(values, RequestState.allCases.map { ($0.word, Int16($0.rawValue)) }, &t.problem, "state")
        case "status":
            t = Term(text: word, field: .status)
            for v in values {
                if let o = outcome(v) {
                    t.codes.append(o.code)
                } else {
                    t.problem = "status: expected an HTTP status (503) or timeout, offline, network-lost, partial"
                }
            }
        default:
            return Term(
                text: word, field: .name,
                problem: "unknown filter `\(key):`; expected rule:, kind:, state:, status: or name:")
        }
        if values.isEmpty { t.problem = "\(key): needs a value" }
        return t
    }

    /// The codes of the words named by `values`: a whole word, or a prefix naming one.
    static func pick(_ values: [String], _ words: [(String, Int16)], _ problem: inout String?, _ key: String) -> [Int16]
    {
        var out: [Int16] = []
        for v in values {
            let hits =
                words.filter { $0.0 == v }.isEmpty ? words.filter { $0.0.hasPrefix(v) } : words.filter { $0.0 == v }
            if hits.count == 1 {
                out.append(hits[0].1)
            } else if hits.count > 1 {
                problem = "\(key): \(v) could be " + hits.map(\.0).joined(separator: " or ")
            } else {
                problem = "\(key): expected " + words.map(\.0).joined(separator: ", ")
            }
        }
        return out
    }

    /// A matcher for one simulation: the name words are looked up once per name,
    /// so each request costs a few comparisons of small integers.
    struct Matcher {
        let terms: [Term]
        /// Per term, per name id, whether the name matches (name terms only).
        let nameHits: [[Bool]]

        init(_ filter: ListFilter, names: [String], profile: Profile, only: Int? = nil) {
            terms = (only.map { [filter.terms[$0]] } ?? filter.terms).map { t in
                var r = t
                switch t.field {
                case .rule:
                    r.codes = profile.rules.filter { t.names.contains(profile.rule($0).id.lowercased()) }.map {
                        Int16($0.rawValue)
                    }
                case .kind:
                    r.codes = t.names.compactMap { profile.vocabulary.kind($0).map { Int16($0.rawValue) } }
                default: break
                }
                return r
            }
            var hits: [[Bool]] = []
            for t in terms {
                if t.field == .name && t.problem == nil {
                    hits.append(
                        names.map { n in
                            let l = n.lowercased()
                            return t.names.contains { l.contains($0) }
                        })
                } else {
                    hits.append([])
                }
            }
            nameHits = hits
        }

        func matches(_ r: Request) -> Bool {
            for (i, t) in terms.enumerated() {
                if t.problem != nil { return false }
                switch t.field {
                case .name: if !nameHits[i][Int(r.nameID)] { return false }
                case .rule: if !t.codes.contains(Int16(r.rule.rawValue)) { return false }
                case .kind: if !t.codes.contains(Int16(r.kind.rawValue)) { return false }
                case .state: if !t.codes.contains(Int16(r.state.rawValue)) { return false }
                case .status: if !t.codes.contains(r.lastOutcome.code) { return false }
                }
            }
            return true
        }
    }
}

extension AppModel {
    /// The parsed `/` filter.
    public var listFilter: ListFilter { ListFilter(nameFilter, profiles: profiles) }

    /// With a filter: the listed ids (one column) or rows + 1 (a compare) under
    /// the tab, and how many match the filter in each state (the tab counts),
    /// in one pass over the requests.
    func filtered(_ filter: ListFilter) -> (ids: [Int32], counts: [Int], total: Int) {
        var counts = [Int](repeating: 0, count: RequestState.allCases.count)
        var out: [Int32] = []
        var total = 0
        let want = tab.state.map { Int($0.rawValue) }
        if isComparing {
            let sims = columns
            let matchers = sims.map { ListFilter.Matcher(filter, names: $0.names, profile: $0.profile) }
            for (i, row) in match.rows.enumerated() {
                var bits = 0
                for (c, id) in row.ids.enumerated() {
                    guard let id else { continue }
                    let r = sims[c].request(id)
                    if matchers[c].matches(r) { bits |= 1 << Int(r.state.rawValue) }
                }
                guard bits != 0 else { continue }
                total += 1
                for k in counts.indices where bits & (1 << k) != 0 { counts[k] += 1 }
                if want == nil || bits & (1 << want!) != 0 { out.append(Int32(i + 1)) }
            }
            return (out, counts, total)
        }
        let matcher = ListFilter.Matcher(filter, names: sim.names, profile: sim.profile)
        for r in sim.requests where r.nameID != 0 || r.state != .dropped {
            guard matcher.matches(r) else { continue }
            let s = Int(r.state.rawValue)
            counts[s] += 1
            total += 1
            if want == nil || want == s { out.append(r.id) }
        }
        return (out, counts, total)
    }

    /// Per state, how many requests (rows) the filter keeps; nil without a filter.
    public var filteredCounts: [Int]? {
        guard !nameFilter.isEmpty else { return nil }
        _ = filteredIDs
        return memo.counts
    }

    /// With a filter: the requests (rows) it keeps in all states.
    public var filteredAllRows: Int {
        _ = filteredIDs
        return memo.total
    }

    /// Why the list is empty under the filter: the first word that cannot match
    /// or matches nothing on its own, else the tab or the combination.
    public var emptyFilterReason: String? {
        guard !nameFilter.isEmpty, rowCount == 0 else { return nil }
        if let w = memo.why { return w }
        let w = workOutEmptyReason()
        memo.why = .some(w)
        return w
    }

    /// What an empty list says when no name filter explains it: the other tabs'
    /// requests when this tab alone is empty, else how to make the first one.
    public var emptyListHint: String {
        let what = isComparing ? "rows" : "requests"
        let total = isComparing ? match.rows.count : sim.requests.count
        if tab != .all && total > 0 {
            return "no \(tab.word) \(what): \(total) in other states (] / [ change tab)"
        }
        if !sim.appRunning { return "the app is closed: L launches it" }
        return isComparing
            ? "no requests yet: t tracks a purchase on every column, : runs any action"
            : "no requests here yet: t tracks a purchase, : runs any action"
    }

    func workOutEmptyReason() -> String {
        let f = listFilter
        let what = isComparing ? "row" : "request"
        for (i, t) in f.terms.enumerated() {
            if let p = t.problem { return "no \(what) matches \(t.text): \(p)" }
            if !anyMatches(f, term: i) { return "no \(what) matches \(t.text)" }
        }
        let all = filteredAllRows
        let words = f.terms.map(\.text).joined(separator: " ")
        if all > 0, tab != .all {
            return "no \(tab.word) \(what) matches \(words) (\(all) in other states: ] / [ change tab)"
        }
        return "no \(what) matches all of \(words) (each matches some)"
    }

    func anyMatches(_ f: ListFilter, term: Int) -> Bool {
        for s in columns {
            let m = ListFilter.Matcher(f, names: s.names, profile: s.profile, only: term)
            if s.requests.contains(where: { ($0.nameID != 0 || $0.state != .dropped) && m.matches($0) }) { return true }
        }
        return false
    }
}

/// The list's order (`S` cycles it; a click on a sortable column's title picks it).
public enum ListSort: Int, CaseIterable, Sendable {
    /// Oldest first: the order requests were made (the default).
    case id
    /// By state in the order of a request's life: pending, in-flight, retrying, queued, delivered, dropped.
    case state
    /// Retrying requests by when their next attempt goes, soonest first; the rest after them.
    case next
    /// Most attempts first.
    case attempts
    /// By name, ignoring case.
    case name

    /// How the message line and the docs say it.
    public var word: String {
        switch self {
        case .id: return "id"
        case .state: return "state"
        case .next: return "next attempt"
        case .attempts: return "attempts"
        case .name: return "name"
        }
    }

    /// The order after this one (`S`).
    public var following: ListSort { ListSort(rawValue: (rawValue + 1) % ListSort.allCases.count)! }
}

extension AppModel {
    /// Whether the list is every request (row) in id order: no tab, filter or
    /// sort, so a row's id is its index + 1 and no list is built.
    public var listIsPlain: Bool { tab == .all && nameFilter.isEmpty && sort == .id }

    /// The listed ids (rows + 1) in the order of `sort`; ties keep their order
    /// in `ids` (id order). Called once per change of the model (`filteredIDs`
    /// memoizes it): a stable bucket pass for the state, otherwise one sort of
    /// packed 64-bit keys (the order's key above, the position below), so a
    /// million requests sort in a few tens of milliseconds in release.
    func sorted(_ ids: [Int32]) -> [Int32] {
        guard sort != .id, ids.count > 1 else { return ids }
        let sims = columns
        // The request a listed item stands for: comparing, the row's first column that has one.
        func request(_ item: Int32) -> (sim: Int, id: Int32)? {
            guard isComparing else { return (0, item) }
            let row = match.rows[Int(item) - 1]
            guard let c = row.ids.firstIndex(where: { $0 != nil }) else { return nil }
            return (c, row.ids[c]!)
        }
        if sort == .state {
            // A counting sort: one pass for the states, one to place each id after those before it.
            let none = UInt8(RequestState.allCases.count)
            let states: [UInt8] =
                isComparing
                ? ids.map { item in request(item).map { sims[$0.sim].request($0.id).state.rawValue } ?? none }
                : ids.map { sim.request($0).state.rawValue }
            var start = [Int](repeating: 0, count: Int(none) + 2)
            for k in states { start[Int(k) + 1] += 1 }
            for k in 1..<start.count { start[k] += start[k - 1] }
            var out = [Int32](repeating: 0, count: ids.count)
            for (i, k) in states.enumerated() {
                out[start[Int(k)]] = ids[i]
                start[Int(k)] += 1
            }
            return out
        }
        var nameRank: [String: UInt32] = [:]
        if sort == .name {
            var names: [String] = []
            if isComparing {
                names = Array(Set(ids.map { match.rows[Int($0) - 1].name }))
            } else {
                names = sim.names
            }
            let lower = names.map { $0.lowercased() }
            let order = lower.indices.sorted { lower[$0] != lower[$1] ? lower[$0] < lower[$1] : names[$0] < names[$1] }
            for (rank, i) in order.enumerated() { nameRank[names[i]] = UInt32(rank) }
        }
        let nameRankByID: [UInt32] = sort == .name && !isComparing ? sim.names.map { nameRank[$0] ?? 0 } : []
        let order = sort
        // The order's key of a request (its name's rank given, for `name`).
        func primary(_ r: Request, now: Millis, nameRank: UInt32) -> UInt32 {
            switch order {
            case .next:
                guard r.state == .retrying && r.nextAttemptAt >= 0 else { return .max }
                // From now; past 49 days all alike (ties then keep id order).
                return min(UInt32(clamping: max(0, r.nextAttemptAt - now)), .max - 1)
            case .attempts: return UInt32.max - UInt32(clamping: r.attempts)
            case .name: return nameRank
            case .id, .state: return 0
            }
        }
        var keys = [UInt64]()
        keys.reserveCapacity(ids.count)
        // Safe: a position fits 32 bits (ids are Int32).
        if isComparing {
            for (pos, item) in ids.enumerated() {
                var k = UInt32.max
                if let (c, id) = request(item) {
                    k = primary(
                        sims[c].request(id), now: sims[c].now, nameRank: nameRank[match.rows[Int(item) - 1].name] ?? 0)
                }
                keys.append(UInt64(k) << 32 | UInt64(UInt32(pos)))
            }
        } else {
            let now = sim.now
            for (pos, id) in ids.enumerated() {
                let r = sim.request(id)
                let k = primary(r, now: now, nameRank: order == .name ? nameRankByID[Int(r.nameID)] : 0)
                keys.append(UInt64(k) << 32 | UInt64(UInt32(pos)))
            }
        }
        keys.sort()
        return keys.map { ids[Int($0 & 0xFFFF_FFFF)] }
    }

    /// `S`: the next order; the selection stays on its request.
    mutating func cycleSort() { setSort(sort.following) }

    mutating func setSort(_ s: ListSort) {
        sort = s
        settleSelection()
        let what = isComparing ? "rows" : "list"
        message = (
            s == .id
                ? "\(what) in id order (S: by \(s.following.word))"
                : "\(what) sorted by \(s.word)\(isComparing ? " (the first column that has the request)" : "") (S: by \(s.following.word))",
            false
        )
    }
}
