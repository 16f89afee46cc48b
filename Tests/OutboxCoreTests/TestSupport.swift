import OutboxTestSupport
import XCTest

/// The `outbox` built with these tests: beside them (a sanitized run's
/// program), else `.build/debug`; the test is skipped when there is none.
func builtOutbox() throws -> String {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("outbox").path,
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("outbox").path,
        packageRoot + "/.build/debug/outbox",
    ]
    guard let b = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw XCTSkip("no built outbox beside the tests or in .build/debug; run `swift build`")
    }
    return b
}
