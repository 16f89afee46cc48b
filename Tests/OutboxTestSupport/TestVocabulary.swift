import OutboxCore

// The built-in vocabulary's kinds and calls (profiles/usercom.calls) under the
// names the tests used before they became data (issue 23): tests may name SDK
// words; Sources/ outside the vocabulary may not (scripts/lint-profiles).
extension RequestKind {
    public static let ping = Vocabulary.builtin.kind("ping")!
    public static let screen = Vocabulary.builtin.kind("screen")!
    public static let product = Vocabulary.builtin.kind("product")!
    public static let notification = Vocabulary.builtin.kind("notification")!
    public static let logout = Vocabulary.builtin.kind("logout")!
    public static let tokenRemoval = Vocabulary.builtin.kind("token-removal")!
    public static let anonymousPing = Vocabulary.builtin.kind("anonymous-ping")!
    public static var allCases: [RequestKind] { Vocabulary.builtin.allKinds }
    public var word: String { Vocabulary.builtin.word(self) }
    public init?(word: String) {
        guard let k = Vocabulary.builtin.kind(word) else { return nil }
        self = k
    }
    /// The three requests `logout` makes.
    public var isLogoutRequest: Bool { self == .logout || self == .tokenRemoval || self == .anonymousPing }
}

extension Action {
    public static let pingSent = Action.call("ping", nil)
    public static let loggedOut = Action.call("logout", nil)
    public static func screenViewed(_ n: String) -> Action { .call("screen", n) }
    public static func productViewed(_ n: String) -> Action { .call("product", n) }
    public static func notificationReported(_ n: String) -> Action { .call("notification", n) }
}
