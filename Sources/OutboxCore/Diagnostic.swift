/// Bad input: where it is and what was expected. The one type every file reader
/// returns (scenarios, profiles, themes), printed `FILE:LINE: message`; a
/// command line turns it into exit status 2.
public struct Diagnostic: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}
