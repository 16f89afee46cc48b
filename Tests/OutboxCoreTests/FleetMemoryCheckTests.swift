import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// A fleet too big for the machine is refused before it starts, with how much
/// it would need and how many shards would fit, rather than killed an hour in.
final class FleetMemoryCheckTests: XCTestCase {
    func fleet(_ devices: Int) throws -> FleetFile {
        let text = "devices \(devices)\nprofile ios\nevents every 1m\nduration 1m\nat 0s launch\n"
        guard case .success(let f) = FleetFile.parse(text, file: "big.fleet") else {
            throw XCTSkip("the fleet file did not parse")
        }
        return f
    }

    func test_aFleetBeyondFourFifthsOfMemory_isRefusedWithTheShardsThatFit() throws {
        let gb: UInt64 = 1 << 30
        let big = try fleet(10_000_000)
        XCTAssertEqual(
            FleetCommand.tooBig(big, shard: .whole, path: "big.fleet", memory: 24 * gb),
            "outbox fleet: big.fleet: 10000000 devices would need about 57.2 GB (about 6 KB each), more than 80% of this machine's 24.0 GB; expected fewer devices, or shards run one after another or on other machines (e.g. --shard 0/5 and the rest, then `outbox fleet merge`)"
        )
        // A fifth of it fits; so does the whole on a machine of 128 GB.
        XCTAssertNil(FleetCommand.tooBig(big, shard: FleetRun.Shard(index: 0, count: 5), path: "big.fleet", memory: 24 * gb))
        XCTAssertNil(FleetCommand.tooBig(big, shard: .whole, path: "big.fleet", memory: 128 * gb))
        // A shard of a shard: the suggestion counts in shards of the whole.
        XCTAssertEqual(
            FleetCommand.tooBig(big, shard: FleetRun.Shard(index: 1, count: 2), path: "big.fleet", memory: 8 * gb)?
                .contains("e.g. --shard 0/16 and the rest"), true)
        XCTAssertNil(FleetCommand.tooBig(try fleet(1_000_000), shard: .whole, path: "big.fleet", memory: 24 * gb))
    }
}
