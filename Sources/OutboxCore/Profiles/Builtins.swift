/// The registry of built-in profiles: the only place outside the profile files
/// that names them. Their files are `profiles/*.profile`, embedded by
/// `scripts/embed-profiles` (`BuiltinSources.swift`); adding a fifth built-in is
/// one file there and running the script.
public enum Builtins {
    /// The built-ins in the order `outbox profiles` lists them; their rules are
    /// numbered in this order after the shared ones.
    /// A fifth built-in needs no line here: every embedded file not listed comes
    /// after these, by name.
    static let order = ["linktrail", "ios", "android", "flutter"]

    /// The names of the embedded files in registry order: the seeds' SDKs (and
    /// any other file of `profiles/`), then the real SDKs (`profiles/real/`), by name.
    static var names: [String] {
        order.filter { sources[$0] != nil }
            + sources.keys.filter { !order.contains($0) && !realNames.contains($0) }.sorted() + realNames.sorted()
    }

    /// Whether a built-in models a real SDK from its source (`profiles/real/`).
    public static func isReal(_ name: String) -> Bool { realNames.contains(name) }

    /// Every built-in, parsed once (thread-safe: a global's lazy initialiser).
    /// The seeds' rules are numbered one profile after the other; each real
    /// SDK's own rules start after the seeds' (they never share a book), so
    /// sixteen of them leave a user's profile room for its own.
    public static let all: [Profile] = {
        var out: [Profile] = []
        var next = Rules.sharedInfo.count
        var seedsEnd = next
        for name in names {
            guard let text = sources[name] else { fatalError("built-in profile \(name) is not embedded") }
            let real = realNames.contains(name)
            let file = real ? "profiles/real/\(name).profile" : "profiles/\(name).profile"
            var parser = ProfileParser(file: file, firstOwnRule: real ? seedsEnd : next, base: { _ in nil })
            switch parser.parse(text, path: nil) {
            case .success(let spec):
                out.append(Profile(spec: spec))
                next = max(next, spec.book.count)
                if !real { seedsEnd = next }
            case .failure(let e):
                fatalError("built-in profile \(name) does not parse: \(e.errors.map(\.description))")
            }
        }
        return out
    }()

    /// How many rule numbers the shared and built-in rules take: a user profile's own start here.
    public static let ruleCount: Int = all.reduce(Rules.sharedInfo.count) { max($0, $1.spec.book.count) }

    /// A built-in by name, or nil.
    public static func named(_ name: String) -> Profile? { all.first { $0.name == name } }

    /// The text of a built-in's file, exactly as in `profiles/`.
    public static func source(_ name: String) -> String? { sources[name] }

    /// A built-in rule by its ID (for tests and the registry's own constants).
    static func rule(_ id: String) -> RuleID {
        for p in all { if let r = p.spec.ruleIDs[id] { return r } }
        fatalError("no built-in rule \(id)")
    }

    // Picks, not branches: code outside the profile seam names a built-in only
    // through these (the lint in scripts/lint-profiles allows exactly `Builtins.X`).
    public static var linktrail: Profile { all[0] }
    public static var ios: Profile { all[1] }
    public static var android: Profile { all[2] }
    public static var flutter: Profile { all[3] }
    /// The profile `outbox` opens with when none is named.
    public static var standard: Profile { all[0] }
    /// The profiles `outbox compare` plays when a file names none.
    public static var compareDefault: [Profile] { [all[1], all[2], all[3]] }
}

extension Profile {
    /// The built-ins, in registry order.
    public static var allCases: [Profile] { Builtins.all }
    /// The built-ins of the seeds' SDKs (linktrail, ios, android, flutter), without the real SDKs'.
    public static var seeds: [Profile] { Builtins.all.filter { !Builtins.isReal($0.name) } }
    /// A built-in by name, or nil (`Builtins.named`).
    public init?(rawValue: String) {
        guard let p = Builtins.named(rawValue) else { return nil }
        self = p
    }
    public static var linktrail: Profile { Builtins.linktrail }
    public static var ios: Profile { Builtins.ios }
    public static var android: Profile { Builtins.android }
    public static var flutter: Profile { Builtins.flutter }
}

/// The built-ins' rules by name, for tests that assert whole histories.
extension RuleID {
    public static let lt1 = Builtins.rule("LT-1")
    public static let lt1a = Builtins.rule("LT-1a")
    public static let lt2 = Builtins.rule("LT-2")
    public static let lt3 = Builtins.rule("LT-3")
    public static let lt4 = Builtins.rule("LT-4")
    public static let lt5 = Builtins.rule("LT-5")
    public static let lt6 = Builtins.rule("LT-6")
    public static let lt7 = Builtins.rule("LT-7")
    public static let lt8 = Builtins.rule("LT-8")
    public static let lt9 = Builtins.rule("LT-9")
    public static let lt10 = Builtins.rule("LT-10")
    public static let lt11 = Builtins.rule("LT-11")
    public static let lt12 = Builtins.rule("LT-12")
    public static let lt13 = Builtins.rule("LT-13")
    public static let ios1 = Builtins.rule("IOS-1")
    public static let ios2 = Builtins.rule("IOS-2")
    public static let ios3 = Builtins.rule("IOS-3")
    public static let ios4 = Builtins.rule("IOS-4")
    public static let ios5 = Builtins.rule("IOS-5")
    public static let ios6 = Builtins.rule("IOS-6")
    public static let ios7 = Builtins.rule("IOS-7")
    public static let and1 = Builtins.rule("AND-1")
    public static let and2 = Builtins.rule("AND-2")
    public static let and3 = Builtins.rule("AND-3")
    public static let and4 = Builtins.rule("AND-4")
    public static let and5 = Builtins.rule("AND-5")
    public static let and6 = Builtins.rule("AND-6")
    public static let fl1 = Builtins.rule("FL-1")
    public static let fl2 = Builtins.rule("FL-2")
    public static let fl3 = Builtins.rule("FL-3")
    public static let fl4 = Builtins.rule("FL-4")
    public static let fl5 = Builtins.rule("FL-5")
}
