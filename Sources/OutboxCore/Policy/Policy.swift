/// The profile language's mechanisms, one file each (docs/architecture.md, "Policy"):
///
/// | file | statements | what it decides |
/// |---|---|---|
/// | Saving.swift | `save`, `created`, `send`, `quit` | what is saved and when; what a new request and a quit do |
/// | Vocabulary.swift | `call` | the kinds of request and the app calls that make them |
/// | Direct.swift | `direct` | kinds sent outside the queue, never saved |
/// | Offline.swift | `offline` | what a request does while the network is off; an SDK that marks itself offline |
/// | Capacity.swift | `keep`, `expire` | how many requests are kept, and for how long |
/// | Batching.swift | `batch` | requests sent together: batch size, flush triggers, head-of-line, splits |
/// | Answers.swift | `on` | what an attempt's outcome does, by answer class |
/// | Backoff.swift | `set retry.*`, `backoff` | the wait before a retry (ladder, exponential or linear, a cap, a jitter) and when retrying stops |
/// | RetryAfter.swift | `retry-after` | what an answer's Retry-After header does (a floor, a replacement, a pause, a mute) |
/// | RetryBudget.swift | `retry-budget` | a token bucket bounding the retries to a share of the requests |
/// | Throttle.swift | `throttle` | the SRE book's client-side adaptive throttling: attempts rejected on the device |
/// | Resend.swift | `resend` | what sends saved requests again |
/// | Lifecycle.swift | `background`, `on background` | the app going to the background and back |
/// | ConsentGate.swift | `component consent-gate` | the consent decision, its install and its purge |
/// | Flush.swift | `component flush` | the flush of the offline queue |
/// | Reporting.swift | `report` | what the app's code hears (onError, completion handlers) |
/// | IdempotencyKeys.swift | `keys` | a key per request, counted once by the backend |
/// | Texts.swift | `say` | the words of the log lines |
///
/// Each file declares its statements (`Statement`: keyword, forms, how a line is
/// read, what docs/profiles.md says of it), the part of `ProfilePolicy` it owns,
/// and how it reacts to the engine's events, as an extension of `Simulation`.
/// `Dispatch.swift` calls the stages for each event in one fixed order. What is
/// made from the declarations (`LanguageDocs`): docs/profiles.md's "Statements"
/// section, Fuzz/*.dict and `outbox profiles NAME --explain`.

/// One statement of the profile language, declared by the mechanism that reads it.
struct Statement: Sendable {
    /// The first word of its lines.
    let keyword: String
    /// Its forms as docs/profiles.md and the error messages write them.
    let forms: [String]
    /// The file of `Sources/OutboxCore` that implements it (`Policy/Answers.swift`).
    let file: String
    /// What docs/profiles.md says of it, one `StatementDoc` a `###` heading.
    var doc: [StatementDoc] = []
    /// The file one line of it is implemented by, when that depends on the
    /// line (`set retry.attempts` is Policy/Backoff.swift's); nil: `file`.
    var fileOf: (@Sendable (_ words: [String]) -> String?)? = nil
    /// Reads one line (`words`, line `n`) into the parser's policy.
    let read: @Sendable (inout ProfileParser, _ n: Int, _ words: [String]) -> Void

    /// The file that implements the line `words` (`outbox profiles NAME --explain`).
    func file(of words: [String]) -> String { fileOf?(words) ?? file }

    /// A form as docs/profiles.md writes it: a rule it cites is `R`
    /// (`created rule ID` is `created rule R`; `rule ID ...` keeps its `ID`).
    static func docForm(_ form: String) -> String {
        form.split(separator: " ", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset >= 2 && $0.element == "ID" ? "R" : String($0.element) }.joined(separator: " ")
    }

    /// Its `###` headings in docs/profiles.md: a doc's own, else its forms.
    func headings(_ d: StatementDoc) -> [String] {
        d.headings ?? [forms.map { "`" + Statement.docForm($0) + "`" }.joined(separator: " · ")]
    }

    /// "expected `A`, `B` or `C`", as the messages say the forms.
    var expected: String { "expected " + Statement.alternatives(forms.map { "`\($0)`" }) }

    /// "A", "A or B", "A, B or C".
    static func alternatives(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items.last!
    }
}

/// What docs/profiles.md says under one or more `###` headings of its
/// "Statements" section, which is made from these (`LanguageDocs.statements`).
struct StatementDoc: Sendable {
    /// The headings, each the forms as the page writes them (in backquotes, `R`
    /// for a rule); nil: the statement's forms, one heading.
    var headings: [String]? = nil
    /// The markdown under them, verbatim: paragraphs, lists, tables.
    let text: String
    /// A whole profile that shows it (a ```profile block, which ProfilesDocTests parses), or nil.
    var example: String? = nil
}

/// The statements after `profile NAME`, in the order docs and messages list them:
/// the profile's own (ProfileParser.swift), then each mechanism's.
enum Policy {
    static let statements: [Statement] = [
        ProfileParser.titleStatement, ProfileParser.baseStatement, ProfileParser.ruleStatement,
        ProfileParser.requestsStatement, AppCalls.statement, Direct.statement, ProfileParser.componentStatement,
        IdempotencyKeys.statement, ProfileParser.setStatement, Saving.saveStatement, Saving.createdStatement,
        Saving.sendStatement, Offline.statement, Saving.quitStatement, Capacity.keepStatement, Capacity.expireStatement,
        Batching.statement,
        Answers.statement, BackoffPolicy.statement, RetryAfterPolicy.statement, RetryBudget.statement,
        Throttle.statement, ResendPolicy.statement,
        Lifecycle.statement,
        ReportingPolicy.statement, Texts.statement,
    ]

    /// `profile NAME`, the first line, read by the parser itself; then `statements`.
    static var documented: [Statement] { [ProfileParser.profileStatement] + statements }

    /// The statements by keyword.
    static let byKeyword: [String: Statement] = Dictionary(uniqueKeysWithValues: statements.map { ($0.keyword, $0) })

    /// The components a `component NAME ...` line names, each a state machine of its own.
    static let components: [Component] = [ConsentGate.component, Flush.component]
}

/// A component of the profile language (`component NAME ROLE R ...`): a state
/// machine a profile names rather than spells; its roles are the rules it cites.
struct Component: Sendable {
    let name: String
    let roles: [String]
    let file: String
    /// Takes the role rules (in `roles` order) into the policy.
    let set: @Sendable (inout ProfilePolicy, [RuleID]) -> Void
    /// `component NAME none`: removes a base's.
    let remove: @Sendable (inout ProfilePolicy) -> Void

    var form: String { "component \(name) " + roles.map { "\($0) ID" }.joined(separator: " ") }
}

/// Everything a profile file says: one value, read line by line (a `base NAME`
/// line starts from a copy of the base's) and kept by `ProfileSpec`. Each
/// mechanism owns its fields; the tables the engine reads on its hot paths are
/// built from it once (`ProfileSpec.init`).
struct ProfilePolicy: Sendable {
    // The profile (ProfileParser.swift).
    var name = ""
    var title = ""
    /// Rules by raw number (a sparse book: shared, then built-in, then own).
    var book: [RuleInfo?] = Rules.sharedInfo.map { $0 }
    /// Its own rules, in file order (a `base`'s first).
    var ownRules: [RuleID] = []
    /// The kinds and calls it knows: the built-in ones, then its own `call` lines (Vocabulary.swift).
    var vocabulary = Vocabulary.builtin
    /// Request kinds the app makes, a bit per `RequestKind` (event always).
    var kinds: UInt64 = RequestKind.event.bit
    /// The app calls it has, a bit per `AppCall.index`: those `requests` names and its own.
    var calls: UInt64 = 0
    /// Its own calls (`call` lines), which a `requests` line keeps.
    var ownCalls: UInt64 = 0
    /// Settings' defaults (`set KEY VALUE`).
    var defaults = Settings()

    // Saving.swift
    var save: SaveMode = .atCreate
    var createdRule: RuleID = .net
    var sendRule: RuleID = .net
    var survivesRule: RuleID = .net
    // Direct.swift
    /// Kinds sent outside the queue, never saved (IOS-7), and the rule they cite.
    var directKinds: UInt64 = 0
    var directRule: RuleID?
    // Offline.swift
    var offline: OfflineMode = .fail
    // Batching.swift: nil, one request an attempt.
    var batch: BatchRule?
    /// `offline self ...`: nil, the SDK never marks itself offline.
    var selfOffline: SelfOfflineRule?
    // Capacity.swift: nil, no limit.
    var capacity: CapacityRule?
    var expiry: ExpiryRule?
    // Answers.swift
    /// The `on` lines as written, by class (a rule may be left to inherit).
    var on: [AnswerClass: OnLine] = [:]
    var exhausted: ExhaustedLine?
    // RetryAfter.swift: nil, the header is not read.
    var retryAfter: RetryAfterRule?
    // RetryBudget.swift, Throttle.swift: nil, no budget, no throttling.
    var retryBudget: RetryBudgetRule?
    var throttle: ThrottleRule?
    // Resend.swift
    var resendLaunch: Resend?
    var resendNetwork: Resend?
    var resendGetInstance: Resend?
    // Lifecycle.swift: nil, no background or foreground.
    var lifecycle: LifecycleRules?
    // ConsentGate.swift, Flush.swift
    var gate: GateRules?
    var flush: FlushRules?
    // Reporting.swift
    var report: Reporting = .none
    // IdempotencyKeys.swift
    var keysRule: RuleID?
    // Texts.swift
    /// The texts the file (or its base) says; the standard ones fill the rest.
    var texts: [TextKey: Template] = [:]
    /// `say warning.dropped ""`: no warning, not even the base's.
    var noWarning = false
}
