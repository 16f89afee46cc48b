import OutboxCLI
import OutboxFoundation
import OutboxServe
import OutboxServer

// `outbox serve`'s HTTP server (SwiftNIO): the command line reaches it through this.
ServeListeners.make = ServeServer.start
ServeBench.install()
let status = CLI.start(Array(CommandLine.arguments.dropFirst()))
exit(status)
