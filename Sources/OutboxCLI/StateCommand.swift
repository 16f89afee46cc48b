import ArgumentParser
import OutboxCore
import OutboxFoundation
import OutboxStore

/// `outbox state show|reset [--profile P] [--state-dir DIR] [--format table|jsonl]`
struct StateCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "state", abstract: "show or reset what the simulated devices saved",
            usage: CLI.parserUsage(synopsis), discussion: Help.state)
    }
    static var synopsis: String {
        "outbox state show [--profile P] [--state-dir DIR] [--format table|jsonl]\n"
            + "       outbox state reset [--profile P] [--state-dir DIR]"
    }

    @Argument(help: ArgumentHelp("show or reset", valueName: "show|reset"), completion: .list(["show", "reset"]))
    var action: String?

    @Option(
        help: ArgumentHelp("only this profile's device (NAME or PATH.profile); default every profile", valueName: "P"),
        completion: ProfileLoader.completion())
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "the devices' folder (default $XDG_STATE_HOME/outbox, else ~/.local/state/outbox)", valueName: "DIR"),
        completion: .directory)
    var stateDir: String?

    @Option(
        help: ArgumentHelp("show: a table for people (default), or one JSON object a line", valueName: "table|jsonl"),
        completion: .list(["table", "jsonl"]))
    var format: String?

    func execute(console: Console) -> Int32 {
        guard let verb = action else {
            console.print(OutboxCommand.helpMessage(for: Self.self, columns: CLI.helpColumns))
            return 2
        }
        guard verb == "show" || verb == "reset" else {
            console.error(
                "outbox state: unknown action `\(SafeText.escaped(verb, max: 60))`, expected show or reset"
                    + Suggest.hint(verb, among: ["show", "reset"]))
            return 2
        }
        var profiles = Profile.allCases
        if let v = profile {
            switch ProfileLoader.resolve(v, relativeTo: nil) {
            case .success(let p): profiles = [p]
            case .failure(let why):
                console.error("outbox state: " + why.message)
                return 2
            }
        }
        let dir = stateDir ?? SQLiteDeviceStore.defaultDirectory()
        if let f = format, f != "table" && f != "jsonl" {
            console.error("outbox state: --format needs table or jsonl")
            return 2
        }
        let jsonl = format == "jsonl"
        return verb == "show"
            ? Self.show(profiles, dir, jsonl, console) : Self.reset(profiles, dir, console)
    }

    static func show(_ profiles: [Profile], _ dir: String, _ jsonl: Bool, _ console: Console) -> Int32 {
        var status: Int32 = 0
        var shown = 0
        // Anything at a database path is shown or refused by name: a link or a
        // directory there is not "no device".
        for p in profiles where SQLiteDeviceStore.hasDevice(directory: dir, profile: p) {
            let store: SQLiteDeviceStore
            do {
                store = try SQLiteDeviceStore(directory: dir, profile: p, readOnly: true)
            } catch {
                console.error("outbox state: " + error.description)
                status = 2
                continue
            }
            defer { store.close() }
            shown += 1
            let rows = store.loadAll()
            // Damage is never passed over: each damaged row or table is named (the
            // sound rows are still shown) and the command fails.
            if store.damageCount > 0 {
                status = 2
                for d in store.damage { console.error("outbox state: " + d.description) }
                let unlisted = store.damageCount - store.damage.count
                if unlisted > 0 {
                    console.error("outbox state: \(store.path): and \(unlisted) more problems, not listed")
                }
                console.error(
                    "outbox state: \(store.path): \(store.damageCount) problem\(store.damageCount == 1 ? "" : "s") found; Outbox will not run this device until it is moved aside with \(SQLiteDeviceStore.hint("reset", directory: dir, profile: p)) (the file is kept under a new name; nothing is deleted)"
                )
            }
            if jsonl {
                for r in rows {
                    var o = JSONObject()
                    o.string("profile", p.rawValue)
                    o.number("id", String(r.id))
                    o.string("kind", p.word(r.kind))
                    o.string("name", r.name)
                    o.number("attempts", String(r.attempts))
                    if r.idempotencyKey != 0 { o.string("idempotency_key", Simulation.hexKey(r.idempotencyKey)) }
                    if let v = r.value { o.number("value", v.text) }
                    if !r.currency.isEmpty { o.string("currency", r.currency) }
                    if r.waitingForConsent { o.bool("waiting_for_consent", true) }
                    console.print(o.text)
                }
                continue
            }
            var head =
                "\(p.rawValue): \(rows.count) saved"
                + (store.damageCount > 0 ? " (and damaged rows, listed on stderr)" : "") + " · \(store.path)"
            if p.hasConsentGate {
                head += " · consent \(store.consent.word) · install \(store.installCreated ? "created" : "not created")"
            }
            console.print(head)
            if rows.isEmpty { continue }
            console.print(row("id", "kind", "name", "attempts", "details"))
            for r in rows {
                var details: [String] = []
                if r.idempotencyKey != 0 { details.append("key " + Simulation.hexKey(r.idempotencyKey)) }
                // Text from the database is shown escaped: a name may hold bytes a terminal obeys.
                func safe(_ s: String) -> String { SafeText.escaped(s, max: 500) }
                if let v = r.value { details.append("value \(v.text) \(safe(r.currency))") }
                if !r.attributes.isEmpty {
                    details.append(r.attributes.map { "\(safe($0.key))=\(safe($0.value))" }.joined(separator: " "))
                }
                if r.waitingForConsent { details.append("waiting for consent") }
                console.print(
                    row(
                        String(r.id), p.word(r.kind), safe(r.name), String(r.attempts), details.joined(separator: " · ")
                    ))
            }
        }
        if shown == 0 && status == 0 {
            console.print("no saved device in \(dir)" + (profiles.count == 1 ? " for \(profiles[0].rawValue)" : ""))
        }
        return status
    }

    static func row(_ id: String, _ kind: String, _ name: String, _ attempts: String, _ details: String) -> String {
        func pad(_ s: String, _ w: Int, right: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, w - s.count))
            return right ? fill + s : s + fill
        }
        return "  " + pad(id, 5, right: true) + "  " + pad(kind, 15) + pad(name, 19) + pad(attempts, 8, right: true)
            + "  " + details
    }

    static func reset(_ profiles: [Profile], _ dir: String, _ console: Console) -> Int32 {
        let stamp = String(Int(Date().timeIntervalSince1970))
        var status: Int32 = 0
        var moved = 0
        for p in profiles {
            do {
                if let aside = try SQLiteDeviceStore.reset(directory: dir, profile: p, stamp: stamp) {
                    console.print("\(p.rawValue): moved the old device aside to \(aside); it starts empty")
                    moved += 1
                }
            } catch {
                console.error("outbox state: " + error.description)
                status = 2
            }
        }
        if moved == 0 && status == 0 { console.print("nothing to reset in \(dir)") }
        return status
    }
}
