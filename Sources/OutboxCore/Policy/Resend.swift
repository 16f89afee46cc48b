/// What sends the saved, queued requests again (`resend on launch|network|
/// getinstance [via getinstance] rule ID`): a launch, the network returning,
/// the app's `getinstance` call; oldest first, each citing the trigger's rule.

/// A resend trigger: saved requests go out again, citing `rule`.
public struct Resend: Equatable, Sendable {
    public let rule: RuleID
    /// The launch calls getInstance(): it says so even when nothing is saved.
    public let viaGetInstance: Bool
}

enum ResendPolicy {
    static let triggers = ["launch", "network", "getinstance"]

    static let statement: Statement = Statement(
        keyword: "resend",
        forms: ["resend on launch|network|getinstance [via getinstance] rule ID", "resend on TRIGGER none"],
        file: "Policy/Resend.swift", doc: doc
    ) { p, n, w in
        let form = statement.expected
        func set(_ trigger: String, _ r: Resend?) {
            switch trigger {
            case "launch": p.d.resendLaunch = r
            case "network": p.d.resendNetwork = r
            case "getinstance": p.d.resendGetInstance = r
            default:
                p.fail(
                    n,
                    "unknown resend trigger \(ProfileParser.q(trigger)), " + form
                        + Suggest.hint(trigger, among: triggers))
            }
        }
        if w.count == 4 && w[1] == "on" && w[3] == "none" { return set(w[2], nil) }
        guard w.count >= 5, w[1] == "on", w[w.count - 2] == "rule" else { return p.fail(n, "bad resend line, " + form) }
        let via = w.count == 7 && w[3] == "via" && w[4] == "getinstance"
        guard w.count == 5 || (via && w[2] == "launch") else { return p.fail(n, "bad resend line, " + form) }
        guard let r = p.cite(n, w[w.count - 1]) else { return }
        set(w[2], Resend(rule: r, viaGetInstance: via))
    }

    static func finish(_ p: inout ProfileParser, end: Int) {
        if p.d.resendGetInstance == nil, p.d.resendLaunch?.viaGetInstance == true {
            p.fail(end, "`resend on launch via getinstance` needs `resend on getinstance rule ID`")
        }
    }
}

extension Simulation {
    /// What resends when saved requests are not sent at once: the flush, getInstance() or a launch.
    var waitsFor: (trigger: ResendTrigger, rule: RuleID) {
        if let f = spec.policy.flush { return (.flush, f.start) }
        if let g = spec.policy.resendGetInstance { return (.getInstance, g.rule) }
        if let l = spec.policy.resendLaunch { return (.launch, l.rule) }
        return (.launch, .net)
    }

    /// Sends saved requests again, oldest first; batched (Policy/Batching.swift), as a flush.
    mutating func resend(_ ids: [Int32], rule: RuleID) {
        if spec.policy.batch != nil { return resendInBatches(ids, rule: rule) }
        for id in ids { send(id, rule: rule) }
    }

    /// The network came back while the app runs (`resend on network`), or a line saying it resends nothing.
    mutating func resendOnNetwork() {
        if let rs = spec.policy.resendNetwork {
            let ids = takeQueued()
            if !ids.isEmpty {
                let n = Int32(clamping: ids.count)
                log(.sdk, .resend(count: n, trigger: .networkBack), request: -1, rule: rs.rule) {
                    $0.say(.resendNetwork) { _ in String(n) }
                }
            }
            resend(ids, rule: rs.rule)
            return
        }
        let queued = Int32(clamping: count(.queued))
        let w = waitsFor
        log(.outbox, .resendWaits(count: queued, for: w.trigger), request: -1, rule: w.rule) {
            $0.say(.waitsNetwork) { _ in String(queued) }
        }
    }

    /// The app started (`resend on launch [via getinstance]`): saved requests go
    /// out, or getInstance() is called, or, held offline, a line says they wait.
    mutating func resendOnLaunch() {
        guard let rs = spec.policy.resendLaunch else { return }
        if rs.viaGetInstance {
            getInstance(at: .launch)
        } else if let hold = heldNow {
            let queued = Int32(clamping: count(.queued))
            if queued > 0 {
                log(.sdk, .resendWaits(count: queued, for: .networkBack), request: -1, rule: hold) {
                    $0.say(.waitsLaunch) { _ in String(queued) }
                }
            }
        } else {
            let ids = takeQueued()
            if !ids.isEmpty {
                let n = Int32(clamping: ids.count)
                log(.sdk, .resend(count: n, trigger: .launch), request: -1, rule: rs.rule) {
                    $0.say(.resendLaunch) { _ in String(n) }
                }
            }
            resend(ids, rule: rs.rule)
        }
    }

    /// getInstance(): every saved request not on the wire goes out again; it says so even with none.
    mutating func getInstance(at trigger: ResendTrigger = .getInstance) {
        let rule =
            (trigger == .launch ? spec.policy.resendLaunch?.rule : nil) ?? spec.policy.resendGetInstance?.rule ?? .net
        if let hold = heldNow {
            // Held offline (or marked offline): nothing is sent; the saved requests wait for the network.
            let queued = Int32(clamping: count(.queued))
            log(.sdk, .resendWaits(count: queued, for: .networkBack), request: -1, rule: hold) {
                $0.say(.waitsOffline) { _ in String(queued) }
            }
            return
        }
        let ids = takeQueued()
        let n = Int32(clamping: ids.count)
        log(.sdk, .resend(count: n, trigger: trigger), request: -1, rule: rule) {
            $0.say(trigger == .launch ? .resendLaunch : .resendGetInstance) { _ in String(n) }
        }
        resend(ids, rule: rule)
    }
}

extension ResendPolicy {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            headings: ["`resend on launch|network|getinstance [via getinstance] rule R`"],
            text: """
                What sends the saved, queued requests again, oldest first, citing `R`:

                - `resend on launch`: at the launch (iOS's IOS-6, Flutter's FL-4). With
                  `offline hold`, a launch while offline only says they wait.
                - `resend on network`: when the network returns (IOS-5). A profile without it
                  writes a line saying the network returning resends nothing.
                - `resend on getinstance`: adds the app's `getinstance` action, which resends
                  every saved request not on the wire (Android's AND-3).
                - `resend on launch via getinstance rule R`: the launch calls `getInstance()`,
                  and says so even when nothing is saved; it needs a `resend on getinstance`
                  line.
                - `resend on launch|network|getinstance none` removes a base's trigger.

                A profile with the flush component also flushes at launch (LT-8).
                """)
    ]
}
