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
    /// By `id - 1`: the request's row, or -1. As long as the highest id with a row.
    private var rowOf: [Int32] = []
    /// By row; meaningful when the request `hasValue`.
    private var revenues: [Revenue] = []
    /// By row; empty when the request has none.
    private var attributeLists: [[Attribute]] = []

    /// Gives request `id` its row; nothing when it carries nothing.
    mutating func add(_ id: Int32, revenue: Revenue?, attributes: [Attribute]) {
        guard revenue != nil || !attributes.isEmpty else { return }
        let i = Int(id) - 1
        if rowOf.count <= i { rowOf.append(contentsOf: repeatElement(-1, count: i + 1 - rowOf.count)) }
        rowOf[i] = Int32(revenues.count)
        revenues.append(revenue ?? Revenue(amount: Amount(micros: 0), currencyID: 0))
        attributeLists.append(attributes)
    }

    @inline(__always)
    private func row(_ id: Int32) -> Int? {
        let i = Int(id) - 1
        guard i >= 0 && i < rowOf.count, rowOf[i] >= 0 else { return nil }
        return Int(rowOf[i])
    }

    /// The revenue stored for `id` (ask only when the request `hasValue`).
    func revenue(_ id: Int32) -> Revenue? { row(id).map { revenues[$0] } }

    /// The attributes of `id`, empty when it has none.
    func attributes(_ id: Int32) -> [Attribute] { row(id).map { attributeLists[$0] } ?? [] }
}
