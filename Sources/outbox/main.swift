import Foundation
import OutboxCLI

let status = CLI.main(Array(CommandLine.arguments.dropFirst()), console: .standard())
exit(status)
