import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// Issue 10: what a careless or hostile user writes. Every example, mutated in
/// seeded ways that reach past the limits (huge numbers, control bytes, CRLF,
/// cut and doubled lines, stray quotes), is read and, when it parses, played to
/// the end: nothing traps, every run ends within its limits, and no control
/// byte from the input reaches the text timeline or an error message.
/// (The fuzz targets go further, for minutes; this is the quick, repeatable part.)
final class MutatedScenarioTests: XCTestCase {
    static let hostileWords = [
        "999999999999h", "100000h", "100001h", "9223372036854775807", "-1", "0", "x999999999999999999",
        "value=999999999999", "value=-999999999999.999999", "\u{1b}[2J", "\u{1b}]2;T\u{07}", "\u{9b}", "\u{202e}",
        "\"", "\\", "#", String(repeating: "w", count: 5000), "1000", "1001", "1ms", "always", "x1000000",
    ]

    func testMutatedExamplesNeverTrapAndNeverEchoControlBytes() throws {
        let dir = packageRoot + "/examples"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".outbox") }.sorted()
        XCTAssertFalse(files.isEmpty)
        var rng = SplitMix64(seed: 10)
        var parsed = 0, played = 0, refused = 0
        for f in files {
            let original = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
            for _ in 0..<100 {
                let text = mutate(original, &rng)
                switch Scenario.parse(text, file: f) {
                case .failure(let e):
                    refused += 1
                    for err in e.errors { assertSafe(SafeText.line(err.description), f) }
                case .success(let sc):
                    parsed += 1
                    var runner = ScenarioRunner(sc, maxTransitions: 200_000)
                    let writer = TimelineWriter(format: .text)
                    var lines = 0
                    runner.run { item, sim in
                        lines += 1
                        // Checking every line of every run is slow in debug: check a sample.
                        guard lines % 7 == 1 else { return }
                        switch item {
                        case .entry(let e): self.assertSafe(writer.line(e, in: sim), f)
                        case .check(let r): self.assertSafe(writer.check(r), f)
                        }
                    }
                    played += 1
                    XCTAssertTrue(runner.stopped == nil || runner.sim.transitionCount > 200_000, runner.stopped ?? "")
                }
            }
        }
        // The mutations must exercise both paths, or the test proves little.
        XCTAssertGreaterThan(parsed, 100, "too few mutants parsed")
        XCTAssertGreaterThan(refused, 100, "too few mutants refused")
        XCTAssertEqual(played, parsed)
    }

    private func assertSafe(_ line: String, _ file: String) {
        for u in line.unicodeScalars where SafeText.needsEscape(u) {
            XCTFail("\(file): control U+\(String(u.value, radix: 16)) in: \(line.prefix(120))")
            return
        }
    }

    /// One seeded mutation: change a word, insert a line, double or drop a line,
    /// switch to CRLF, or splice in a hostile word.
    private func mutate(_ text: String, _ rng: inout SplitMix64) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rounds = 1 + Int(rng.next() % 3)
        for _ in 0..<rounds {
            guard !lines.isEmpty else { break }
            let i = Int(rng.next() % UInt64(lines.count))
            let hostile = Self.hostileWords[Int(rng.next() % UInt64(Self.hostileWords.count))]
            switch rng.next() % 6 {
            case 0, 1:
                var words = lines[i].split(separator: " ").map(String.init)
                if !words.isEmpty { words[Int(rng.next() % UInt64(words.count))] = hostile }
                lines[i] = words.joined(separator: " ")
            case 2: lines.insert("at \(hostile) track \(hostile)", at: i)
            case 3: lines.insert(lines[i], at: i)
            case 4: lines.remove(at: i)
            default: lines[i] += " \(hostile)"
            }
        }
        let joined = lines.joined(separator: "\n")
        return rng.next() % 4 == 0 ? joined.replacingOccurrences(of: "\n", with: "\r\n") : joined
    }
}
