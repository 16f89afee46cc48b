// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Outbox",
    products: [
        .executable(name: "outbox", targets: ["outbox"])
    ],
    dependencies: [
        // The command line's options, help, errors and completions. Machines without
        // access to GitHub use the copy in ../shared/vendor (scripts/use-vendor).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `outbox serve`'s HTTP/1.1 server (NIOCore, NIOPosix, NIOHTTP1), with its
        // dependencies (swift-atomics, swift-collections, swift-system).
        .package(url: "https://github.com/apple/swift-nio", from: "2.60.0"),
    ],
    targets: [
        // The pure model: requests, policies, clock, backend, scenarios, timelines.
        // No terminal, no wall clock, no Foundation.
        .target(name: "OutboxCore", dependencies: ["COutboxHints"]),
        // Prefetch hints for the fleet's lanes (one static inline function): Swift has none.
        .target(name: "COutboxHints"),
        // Foundation for the command line: FoundationEssentials where it is a module of
        // its own (Linux: no ICU in the binary), Foundation elsewhere. One file.
        .target(name: "OutboxFoundation"),
        // Command-line front end: argument parsing and subcommands, callable in-process by tests.
        .target(
            name: "OutboxCLI",
            dependencies: [
                "OutboxCore", "OutboxFoundation", "OutboxStore", "OutboxUI", "OutboxTerminal", "CSQLite",
                "OutboxServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // zlib, for request bodies sent gzip or deflate. Debian: zlib1g-dev; macOS: the SDK's libz.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // `outbox serve`: real SDKs' requests read (their wire formats, inflated
        // bodies), answered by a plan, observed as events and attempts. Pure: the
        // time comes from the caller.
        .target(name: "OutboxServe", dependencies: ["OutboxCore", "OutboxFoundation", "CZlib"]),
        // `outbox serve`'s HTTP/1.1 server on SwiftNIO, in one file; the executable
        // hands it to the command line (`ServeListeners.make`).
        .target(
            name: "OutboxServer",
            dependencies: [
                "OutboxServe", "OutboxCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // SQLite, through a shim for the macros Swift cannot import.
        // Debian: libsqlite3-dev; macOS: the SDK's libsqlite3 (or Homebrew's sqlite).
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The simulated device's storage on SQLite.
        .target(name: "OutboxStore", dependencies: ["CSQLite", "OutboxCore"]),
        // The interactive screen without curses: cells, roles, themes, keys, model, view.
        .target(name: "OutboxUI", dependencies: ["OutboxCore", "OutboxServe"]),
        // ncurses, through a shim that wraps what Swift cannot import. A C target, not a
        // system library, so the library to link can differ per platform: Debian's
        // libncursesw (libncurses-dev) and forkpty's libutil; macOS's libncurses, whose
        // wide-character API the SDK's <curses.h> declares (Homebrew's ncurses works too:
        // `brew install ncurses`). SwiftPM names providers only for system libraries.
        .target(
            name: "CNcurses",
            linkerSettings: [
                .linkedLibrary("ncursesw", .when(platforms: [.linux])),
                .linkedLibrary("util", .when(platforms: [.linux])),
                .linkedLibrary("ncurses", .when(platforms: [.macOS])),
            ]),
        // The only importer of CNcurses: set-up, teardown, drawing, keys.
        .target(name: "OutboxTerminal", dependencies: ["CNcurses", "OutboxUI"]),
        // The executable: a thin shell around OutboxCLI.
        .executableTarget(name: "outbox", dependencies: ["OutboxCLI", "OutboxFoundation", "OutboxServer"]),
        // What the test targets share: inline scenarios played, timelines and trails
        // rendered, the command line run in-process. A library only the test targets
        // depend on (the `outbox` product does not link it, nor XCTest).
        .target(
            name: "OutboxTestSupport", dependencies: ["OutboxCore", "OutboxCLI", "OutboxServer"],
            path: "Tests/OutboxTestSupport"),
        // Tests. Their Fixtures and Snapshots are read by path from the checkout (and
        // re-recorded there), not bundled: excluded, so SwiftPM does not warn of them.
        .testTarget(
            name: "OutboxCoreTests", dependencies: ["OutboxCore", "OutboxCLI", "OutboxTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "OutboxUITests", dependencies: ["OutboxUI", "OutboxCore", "OutboxCLI", "OutboxTestSupport"],
            exclude: ["Snapshots"]),
        .testTarget(
            name: "OutboxServeTests",
            dependencies: ["OutboxServe", "OutboxServer", "OutboxCore", "OutboxCLI", "OutboxUI", "OutboxTestSupport"]),
        .testTarget(
            name: "OutboxStoreTests",
            dependencies: ["OutboxStore", "OutboxCore", "OutboxCLI", "CSQLite", "OutboxTestSupport"]),
    ]
)
