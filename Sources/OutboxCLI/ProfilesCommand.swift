import ArgumentParser
import OutboxCore

/// `outbox profiles [NAME]`: rules, settings with defaults, assumptions.
struct ProfilesCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "profiles", abstract: "print each profile's rules, settings and assumptions",
            usage: CLI.parserUsage(synopsis), discussion: Help.profiles)
    }
    static var synopsis: String { "outbox profiles [NAME|PATH.profile] | --source NAME|PATH.profile" }

    @Argument(
        help: ArgumentHelp(
            "a profile: a built-in's name, a user profile's, or a .profile file", valueName: "NAME|PATH.profile"),
        completion: .list(Builtins.all.map(\.rawValue)))
    var names: [String] = []

    @Flag(help: "print the profile's file exactly (a built-in's is where to start your own)")
    var source = false

    func execute(console: Console) -> Int32 {
        let names = self.names, source = self.source
        guard names.count <= 1, !source || names.count == 1 else {
            console.error(
                source
                    ? "outbox profiles --source: expected one profile name or PATH.profile"
                    : "outbox profiles: expected at most one profile name or PATH.profile")
            console.error("usage: " + Self.synopsis)
            return 2
        }
        var chosen: [Profile] = []
        var bad = false
        if let name = names.first {
            switch ProfileLoader.resolve(name, relativeTo: nil) {
            case .success(let p): chosen = [p]
            case .failure(let why):
                console.error("outbox profiles: " + why.message)
                return 2
            }
        } else {
            chosen = Profile.allCases
            for name in ProfileLoader.userNames {
                switch ProfileLoader.resolve(name, relativeTo: nil) {
                case .success(let p): chosen.append(p)
                case .failure(let why):
                    console.error("outbox profiles: " + why.message)
                    bad = true
                }
            }
        }
        if source {
            // Exactly the file, byte for byte (a terminal shows it as text).
            console.print(chosen[0].spec.source, terminator: "")
            return 0
        }
        for (n, p) in chosen.enumerated() {
            if n > 0 { console.print("") }
            for line in Self.describe(p) { console.print(line) }
        }
        return bad ? 2 : 0
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
        let valueWidth = max(14, Settings.keys(on: p).map { (defaults.value(of: $0.name) ?? "").count + 2 }.max() ?? 0)
        for k in Settings.keys(on: p) {
            out.append("  " + pad(k.name, 16) + pad(defaults.value(of: k.name) ?? "", valueWidth) + k.help)
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
