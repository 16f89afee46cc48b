/// Finds the profile a scenario's `profile` or `compare` line, `--profile` or
/// `--profiles` names: a built-in by name, or (given by the command line, which
/// reads files) a user's profile file by path or from the user folder.
public struct ProfileResolver: Sendable {
    public let resolve: @Sendable (String) -> Result<Profile, Problem>

    public init(_ resolve: @escaping @Sendable (String) -> Result<Profile, Problem>) { self.resolve = resolve }

    /// Built-ins only: the core reads no files.
    public static let builtins = ProfileResolver { name in
        if let p = Builtins.named(name) { return .success(p) }
        return .failure(
            Problem(
                "unknown profile `\(SafeText.escaped(name, max: 60))`, expected \(builtinNames(", ", last: " or "))"
                    + Suggest.hint(name, among: Builtins.all.map(\.name))))
    }

    /// The seeds' built-ins' names, joined (`linktrail|ios|android|flutter`);
    /// with `last` (a list for people), the real SDKs are named after them as
    /// a group: `linktrail, ios, android, flutter or a real SDK's name (...)`.
    /// Twenty names would drown the message; did-you-mean looks among them all.
    public static func builtinNames(_ sep: String, last: String? = nil) -> String {
        let names = Builtins.all.map(\.name).filter { !Builtins.isReal($0) }
        guard let last, names.count > 1 else { return names.joined(separator: sep) }
        guard Builtins.all.contains(where: { Builtins.isReal($0.name) }) else {
            return names.dropLast().joined(separator: sep) + last + names.last!
        }
        return names.joined(separator: sep) + last + realSDKs
    }

    /// How messages name the real SDKs' built-ins as a group.
    public static let realSDKs = "a real SDK's name (`outbox profiles` lists them: posthog-ios, segment-swift, ...)"
}
