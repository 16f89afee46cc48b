import XCTest
@testable import OutboxCore
final class ZZSizeProbe: XCTestCase {
    func test_probe() { print("SIZES Request \(MemoryLayout<Request>.size)/\(MemoryLayout<Request>.stride) Simulation \(MemoryLayout<Simulation>.size) Answer \(MemoryLayout<Answer>.size) Action \(MemoryLayout<Action>.size)") }
}
