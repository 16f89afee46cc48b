import OutboxCore

/// `outbox profiles [NAME]`: rules, settings with defaults, assumptions.
enum ProfilesCommand {
    static func main(_ args: [String], console: Console) -> Int32 {
        if args.first == "--help" || args.first == "-h" {
            console.print(Help.profiles)
            return 0
        }
        guard args.count <= 1 else {
            console.error("outbox profiles: expected at most one profile name")
            console.error(CLI.usage)
            return 2
        }
        var chosen = Profile.allCases
        if let name = args.first {
            guard let p = Profile(rawValue: name) else {
                console.error("outbox profiles: unknown profile `\(name)`, expected one of: "
                    + Profile.allCases.map(\.rawValue).joined(separator: ", "))
                return 2
            }
            chosen = [p]
        }
        for (n, p) in chosen.enumerated() {
            if n > 0 { console.print("") }
            for line in describe(p) { console.print(line) }
        }
        return 0
    }

    static func describe(_ p: Profile) -> [String] {
        var out = ["\(p.rawValue): \(p.title)"]
        if let path = p.spec.path { out.append("(from \(path))") }
        out += ["", "rules:"]
        let own = p.ownRules.map { p.rule($0) }
        let width = max(7, (own.map(\.id.count).max() ?? 0) + 1)
        for r in own {
            out.append("  " + pad(r.id, width) + (r.isAssumption ? "[assumption] " : "") + r.text)
        }
        out.append("shared rules:")
        for r in Rules.shared.map({ p.rule($0) }) {
            out.append("  " + pad(r.id, 10) + r.text)
        }
        out.append("settings (set <key> <value>):")
        let defaults = Settings(profile: p)
        for k in Settings.keys(on: p) {
            out.append("  " + pad(k.name, 16) + pad(defaults.value(of: k.name) ?? "", 14) + k.help)
        }
        let assumptions = own.filter(\.isAssumption)
        out.append("assumptions (where the documents are silent; see docs/DECISIONS.md):")
        if assumptions.isEmpty { out.append("  none") }
        for r in assumptions { out.append("  \(r.id): \(r.text)") }
        return out
    }

    static func pad(_ s: String, _ w: Int) -> String {
        s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count)
    }
}
