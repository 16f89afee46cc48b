import OutboxCLI
import OutboxFoundation

let status = CLI.start(Array(CommandLine.arguments.dropFirst()))
exit(status)
