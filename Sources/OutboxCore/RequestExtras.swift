/// What some requests carry beside their fixed 64 bytes: an event's revenue
/// (LT-13) and its attributes. Few requests carry any in most runs; in a file
/// of tracked events every one does.
///
/// A row per request that carries something, found through a dense index by
/// id: 4 bytes for every request up to the last one with a row, 28 for each
/// one with a row. Two `[Int32: …]` dictionaries cost ~80 bytes a request at
/// 10^6 (docs/reliability.md, "Big inputs"). An attribute list is shared, not
/// copied, with the action that made it, so a list said by many lines is kept once.
struct RequestExtras: Sendable {
    /// By `id - 1 - base`: the request's row, or -1. As long as the highest id with a row.
    private var rowOf: [Int32] = []
    /// Requests forgotten (`forgetAll`): ids up to `base` have no row.
    private var base = 0
    /// By row; meaningful when the request `hasValue`.
    private var revenues: [Revenue] = []
    /// By row; empty when the request has none.
    private var attributeLists: [[Attribute]] = []

    /// Gives request `id` its row; nothing when it carries nothing.
    mutating func add(_ id: Int32, revenue: Revenue?, attributes: [Attribute]) {
        guard revenue != nil || !attributes.isEmpty else { return }
        let i = Int(id) - 1 - base
        if rowOf.count <= i { rowOf.append(contentsOf: repeatElement(-1, count: i + 1 - rowOf.count)) }
        rowOf[i] = Int32(revenues.count)
        revenues.append(revenue ?? Revenue(amount: Amount(micros: 0), currencyID: 0))
        attributeLists.append(attributes)
    }

    @inline(__always)
    private func row(_ id: Int32) -> Int? {
        let i = Int(id) - 1 - base
        guard i >= 0 && i < rowOf.count, rowOf[i] >= 0 else { return nil }
        return Int(rowOf[i])
    }

    /// The revenue stored for `id` (ask only when the request `hasValue`).
    func revenue(_ id: Int32) -> Revenue? { row(id).map { revenues[$0] } }

    /// The attributes of `id`, empty when it has none.
    func attributes(_ id: Int32) -> [Attribute] { row(id).map { attributeLists[$0] } ?? [] }

    /// Forgets the requests up to id `last` while later ones stay: their index
    /// entries go; their rows (a revenue, an attribute list) stay until
    /// `forgetAll`, as renumbering the rows would cost more than they hold.
    mutating func forget(through last: Int32) {
        let n = Int(last) - base
        guard n > 0 else { return }
        if !rowOf.isEmpty { rowOf.removeFirst(Swift.min(n, rowOf.count)) }
        base = Int(last)
    }

    /// Forgets every request up to id `last`: their rows go.
    mutating func forgetAll(through last: Int32) {
        // Kept, not freed: a fleet's device forgets after nearly every event.
        if !rowOf.isEmpty {
            rowOf.removeAll(keepingCapacity: true)
            revenues.removeAll(keepingCapacity: true)
            attributeLists.removeAll(keepingCapacity: true)
        }
        base = Int(last)
    }
}

/// Request ids by name, oldest first: each name's requests chained through
/// one array by id. An array per name cost ~40 bytes a name beside the ids,
/// which a file of 10^6 distinct names paid 10^6 times.
struct RequestsByName: Sendable {
    /// By name id: the first and last request with the name, or 0.
    private var first: [Int32] = [], last: [Int32] = []
    /// By `id - 1 - base`: the next request with the same name, or 0.
    private var next: [Int32] = []
    /// Requests forgotten (`forgetAll`): the chains start after id `base`.
    private var base = 0

    /// Where the chains' arrays are (`Prefetch`; a fleet's lane).
    static var arrayWords: [Int] {
        [\RequestsByName.first, \.last, \.next].map { MemoryLayout<RequestsByName>.offset(of: $0)! }
    }

    /// Adds the next request (ids come one by one from 1).
    mutating func add(_ id: Int32, name: Int32) {
        precondition(Int(id) == base + next.count + 1, "requests are added in id order")
        next.append(0)
        let n = Int(name)
        if first.count <= n {
            first.append(contentsOf: repeatElement(0, count: n + 1 - first.count))
            last.append(contentsOf: repeatElement(0, count: n + 1 - last.count))
        }
        if first[n] == 0 { first[n] = id } else { next[Int(last[n]) - 1 - base] = id }
        last[n] = id
    }

    /// The ids with name id `name`, oldest first.
    func ids(_ name: Int32) -> [Int32] {
        var out: [Int32] = []
        var id = Int(name) < first.count ? first[Int(name)] : 0
        while id != 0 {
            out.append(id)
            id = next[Int(id) - 1 - base]
        }
        return out
    }

    /// Forgets the requests up to id `end` while later ones stay: each chain
    /// starts at its first later id.
    mutating func forget(through end: Int32) {
        let n = Int(end) - base
        guard n > 0 else { return }
        for k in first.indices where first[k] != 0 && first[k] <= end {
            var id = first[k]
            while id != 0 && id <= end { id = next[Int(id) - 1 - base] }
            first[k] = id
            if id == 0 { last[k] = 0 }
        }
        next.removeFirst(Swift.min(n, next.count))
        base = Int(end)
    }

    /// Forgets every request up to id `last`: `ids` gives only later ones.
    mutating func forgetAll(through end: Int32) {
        // Emptied in place, not freed: a fleet's device forgets after nearly every event.
        for k in first.indices where first[k] != 0 {
            first[k] = 0
            last[k] = 0
        }
        if !next.isEmpty { next.removeAll(keepingCapacity: true) }
        base = Int(end)
    }
}
