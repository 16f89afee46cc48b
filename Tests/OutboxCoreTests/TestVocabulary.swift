import OutboxCore

// The built-in vocabulary's kinds and calls (profiles/usercom.calls) under the
// names the tests used before they became data (issue 23): tests may name SDK
// words; Sources/ outside the vocabulary may not (scripts/lint-profiles).
extension RequestKind {
    static let ping = Vocabulary.builtin.kind("ping")!
    static let screen = Vocabulary.builtin.kind("screen")!
    static let product = Vocabulary.builtin.kind("product")!
    static let notification = Vocabulary.builtin.kind("notification")!
    static let logout = Vocabulary.builtin.kind("logout")!
    static let tokenRemoval = Vocabulary.builtin.kind("token-removal")!
    static let anonymousPing = Vocabulary.builtin.kind("anonymous-ping")!
    static var allCases: [RequestKind] { Vocabulary.builtin.allKinds }
    var word: String { Vocabulary.builtin.word(self) }
    init?(word: String) {
        guard let k = Vocabulary.builtin.kind(word) else { return nil }
        self = k
    }
    /// The three requests `logout` makes.
    var isLogoutRequest: Bool { self == .logout || self == .tokenRemoval || self == .anonymousPing }
}

extension Action {
    static let pingSent = Action.call("ping", nil)
    static let loggedOut = Action.call("logout", nil)
    static func screenViewed(_ n: String) -> Action { .call("screen", n) }
    static func productViewed(_ n: String) -> Action { .call("product", n) }
    static func notificationReported(_ n: String) -> Action { .call("notification", n) }
}
