/// What was wrong with some input, and what was expected.
public struct Problem: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// Every problem found in one scenario file.
public struct ScenarioErrors: Error, Sendable {
    public let errors: [ScenarioError]
}

/// Bad input in a scenario file (the one `Diagnostic` type of every reader).
public typealias ScenarioError = Diagnostic
