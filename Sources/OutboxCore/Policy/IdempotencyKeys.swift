/// Idempotency keys (`keys idempotency rule ID`, LinkTrail's LT-7): each request
/// gets a key when it is made, kept by every resend, and the backend counts a
/// key once (its duplicate line cites the rule). `keys none`: no keys.

enum IdempotencyKeys {
    static let statement: Statement = Statement(
        keyword: "keys", forms: ["keys idempotency rule ID", "keys none"], file: "Policy/IdempotencyKeys.swift",
        doc: doc
    ) { p, n, w in
        if w.count == 2 && w[1] == "none" {
            p.d.keysRule = nil
            return
        }
        guard w.count == 4, w[1] == "idempotency", w[2] == "rule" else {
            p.uncounted = true
            return p.fail(n, "bad keys line, " + statement.expected)
        }
        p.d.keysRule = p.cite(n, w[3])
    }
}

extension Simulation {
    /// The key of a new request `id` (0: none): a restored request keeps its own.
    @inline(__always)
    func newKey(_ id: Int32, restored key: UInt64?) -> UInt64 {
        guard spec.policy.keysRule != nil else { return 0 }
        // A key per request, from the seed, so runs are repeatable.
        return key ?? Simulation.linkTrailKey(seed: settings.seed, id: id, opens: store.epoch)
    }

    /// LT-7: the idempotency key of request `id` made on a device opened `opens`
    /// times before, from the seed, so runs are repeatable.
    static func linkTrailKey(seed: UInt64, id: Int32, opens: UInt64) -> UInt64 {
        var g = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(id) ^ (opens << 40))
        return g.next() | 1
    }
}

extension IdempotencyKeys {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            text: """
                Each request gets an idempotency key when it is made, kept by every resend, and
                the backend counts a key once (LT-7). `R` is cited by the backend's line about a
                duplicate. Without it (or with `keys none`, which removes a base's), requests
                carry no key and the backend counts every request it accepts, resends included.
                """)
    ]
}
