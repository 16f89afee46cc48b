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

    /// The built-ins' names, joined (`linktrail|ios|android|flutter`).
    public static func builtinNames(_ sep: String, last: String? = nil) -> String {
        let names = Builtins.all.map(\.name)
        guard let last, names.count > 1 else { return names.joined(separator: sep) }
        return names.dropLast().joined(separator: sep) + last + names.last!
    }
}
