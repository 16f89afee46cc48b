/// A parsed scenario file: a profile, settings and timed lines (docs/scenarios.md; the
/// contract is the shared spec shared/spec/scenario-format.md, outside this repository).
public struct Scenario: Sendable {
    public let file: String
    /// The profile it plays: the file's `profile` line, or the one it was parsed
    /// to play (`parse(_:file:playing:)`).
    public let profile: Profile
    public let settings: Settings
    /// Actions and checks in the order they happen: by time, then file order.
    public let steps: Steps
    /// The file's own `profile` line: the profile a plain `expect` line checks.
    public let fileProfile: Profile
    /// The file's `compare` line: the profiles `outbox compare` plays it on, or nil.
    public let compareProfiles: [Profile]?
    /// The lines left out because `profile` lacks what they do, in file order
    /// (only when parsed to play a profile; `outbox run` makes them errors).
    public let skipped: [SkippedLine]
    /// What the device holds when the scenario starts: its `saved` and `device`
    /// lines (an extension); empty for the contract's fresh device.
    public let device: DeviceStart
    /// The `expect` lines that can only fail, found before anything runs, by
    /// line: why, with a "did you mean" (a check on a name no line creates, a
    /// `request ID` past the most the lines make). The contract makes such a
    /// check a failed one, exit 1, not bad input: each fails at its time with
    /// this as what was found (`ScenarioRunner`).
    public let unmatchable: [Int: String]

    public init(
        file: String, profile: Profile, settings: Settings, steps: Steps, fileProfile: Profile? = nil,
        compareProfiles: [Profile]? = nil, skipped: [SkippedLine] = [], device: DeviceStart = DeviceStart(),
        unmatchable: [Int: String] = [:]
    ) {
        self.unmatchable = unmatchable
        self.file = file
        self.profile = profile
        self.settings = settings
        self.steps = steps
        self.fileProfile = fileProfile ?? profile
        self.compareProfiles = compareProfiles
        self.skipped = skipped
        self.device = device
    }

    /// A line a profile lacks, left out when the file plays that profile.
    public struct SkippedLine: Equatable, Sendable {
        public let line: Int
        /// The line as written, without its comment.
        public let text: String
        /// Why, said of no profile in particular (`Action.lackedReason`).
        public let reason: String
    }

    public struct Step: Sendable {
        public let line: Int
        public let time: Millis
        public let content: Content
        /// A check's line as written, without its comment; "" for an action
        /// (action lines are not kept as text: see `Steps`).
        public let text: String
    }

    public enum Content: Sendable {
        case action(Action)
        case check(Check)
    }
}

extension Scenario {
    /// Parses a scenario; every problem found is returned, and then nothing runs.
    ///
    /// An `expect` naming a request no line of the file creates is not one of
    /// those problems: it is kept in `unmatchable` and fails when it is checked
    /// (scenario-format.md, "Checks": exit 1, saying so). With `savedDevice`
    /// (`outbox run --state-dir`) names are not looked for: a device on disk may
    /// hold requests of any name.
    public static func parse(
        _ text: String, file: String, profiles: ProfileResolver = .builtins, savedDevice: Bool = false
    ) -> Result<Scenario, ScenarioErrors> {
        var parser = ScenarioParser(file: file)
        parser.resolver = profiles
        parser.savedDevice = savedDevice
        return parser.parse(text)
    }

    /// Parses a scenario to play it on `profile`, whatever its `profile` line
    /// says (`outbox compare`): an action, a `set` line or a mid-run `set` that
    /// `profile` lacks is left out and listed in `skipped` rather than an error;
    /// plain `expect` lines check only when `profile` is the file's own, and
    /// `expect on` lines when they name it. The result plays exactly as
    /// `parse(_:file:)` of the file rewritten for `profile` with the skipped
    /// lines removed.
    public static func parse(
        _ text: String, file: String, playing profile: Profile, profiles: ProfileResolver = .builtins
    ) -> Result<Scenario, ScenarioErrors> {
        var parser = ScenarioParser(file: file)
        parser.resolver = profiles
        parser.playing = profile
        return parser.parse(text)
    }

    /// The profiles of a file's `compare` line, read from the lines before its
    /// first `at`; nil when it has none or it is not well formed (the parse says
    /// why).
    public static func compareLine(in text: String, profiles: ProfileResolver = .builtins) -> [Profile]? {
        var rest = TextInput.droppingBOM(text)
        while !rest.isEmpty {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            guard case .success(let (w, _)) = LineLexer.words(String(line)), let first = w.first else { continue }
            if first == "at" { return nil }
            if first == "compare" {
                guard w.count == 2, case .success(let list) = Profile.list(w[1], profiles: profiles) else { return nil }
                return list
            }
        }
        return nil
    }
}

extension Profile {
    /// `ios,android,...`: profile names, comma-separated, none twice. The failure
    /// names the word that is not a profile.
    public static func list(_ word: String, profiles: ProfileResolver = .builtins) -> Result<[Profile], Problem> {
        var out: [Profile] = []
        for part in word.split(separator: ",", omittingEmptySubsequences: false) {
            let p: Profile
            switch profiles.resolve(String(part)) {
            case .success(let found): p = found
            case .failure(let problem): return .failure(problem)
            }
            guard !out.contains(p) else { return .failure(Problem("profile `\(p.rawValue)` named twice")) }
            out.append(p)
        }
        return .success(out)
    }
}
