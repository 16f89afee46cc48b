import Foundation
import OutboxCLI

let status = CLI.start(Array(CommandLine.arguments.dropFirst()))
exit(status)
