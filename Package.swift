// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Outbox",
    products: [
        .executable(name: "outbox", targets: ["outbox"])
    ],
    targets: [
        // The pure model: requests, policies, clock, backend, scenarios, timelines.
        // No terminal, no wall clock, no Foundation.
        .target(name: "OutboxCore"),
        // Command-line front end: argument parsing and subcommands, callable in-process by tests.
        .target(name: "OutboxCLI", dependencies: ["OutboxCore"]),
        // The executable: a thin shell around OutboxCLI.
        .executableTarget(name: "outbox", dependencies: ["OutboxCLI"]),
        // Tests.
        .testTarget(name: "OutboxCoreTests", dependencies: ["OutboxCore", "OutboxCLI"]),
    ]
)
