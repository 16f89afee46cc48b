import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI

/// What replaced full Foundation's APIs in the command line when it moved to
/// FoundationEssentials (issue 16: no ICU in the binary). The tests may use full
/// Foundation; they check the replacements say the same as what they replace.
final class EssentialsTests: XCTestCase {
    /// `Decimals.fixed(v, n)` is `String(format: "%.nf", v)` (what the bench
    /// printed before), over ties, signs, every magnitude and random doubles.
    func test_decimals_sayWhatStringFormatSaid() {
        var values: [Double] = [
            0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1.005, 2.675, 0.045, 9.995, 99.5, 0.05, 1e-7,
            123.456, 1_048_576, 1e6, 1e15, 1e17, 1e22, 4503599627370495.5, 9007199254740993, 1e300,
            .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude, -1e-320,
            Double(Int.max), 0.1 + 0.2,
        ]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let exponent = Double.random(in: -12...20, using: &rng)
            values.append(Double.random(in: -1...1, using: &rng) * pow(10, exponent))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
            // Halves at the last decimal, exactly representable: k/2^j.
            values.append(Double(Int.random(in: -100_000...100_000, using: &rng)) / Double(1 << Int.random(in: 1...12)))
        }
        var differ: [String] = []
        for v in values where v.isFinite {
            for places in 0...4 {
                let want = String(format: "%.\(places)f", v), got = Decimals.fixed(v, places)
                if want != got { differ.append("\(v) %.\(places)f: \(want) vs \(got)") }
            }
        }
        XCTAssertEqual(differ.prefix(10), [])
        XCTAssertEqual(Decimals.fixed(0.125, 2), "0.12")
        XCTAssertEqual(Decimals.fixed(-0.001, 2), "-0.00")
        XCTAssertEqual(Decimals.fixed(1_500_000 / 1e6, 2) + "M", "1.50M")
        XCTAssertEqual([Double.nan, .infinity, -.infinity].map { Decimals.fixed($0, 1) }, ["nan", "inf", "-inf"])
    }

    /// The lexical path normalizer (used when a profile's real path cannot be had).
    func test_standardized_dropsDotsAndRepeatedSlashes_byTheNamesAlone() {
        let cases: [(String, String)] = [
            ("/a/b/c.profile", "/a/b/c.profile"),
            ("/a/./b//../c/", "/a/c"),
            ("/../x", "/x"),
            ("/a/b/../../..", "/"),
            ("/", "/"),
            ("//a//b", "/a/b"),
            ("/a/.../b", "/a/.../b"),
            ("/a/..b/./c.", "/a/..b/c."),
        ]
        XCTAssertEqual(cases.map { ProfileLoader.standardized($0.0) }, cases.map(\.1))
    }

    /// A profile read through a symbolic link and `..` is known by its real
    /// path, as with NSString's `standardizingPath` before.
    func test_aProfileReadThroughALink_isKnownByItsRealPath() throws {
        let root = NSTemporaryDirectory() + "essentials-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/real/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: packageRoot + "/Tests/OutboxCoreTests/Fixtures/acme.profile", toPath: root + "/real/acme.profile")
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/real/sub")
        let real = try XCTUnwrap(Platform.realPath(root))
        let (status, out, err) = cli(["profiles", root + "/link/../acme.profile"])
        XCTAssertEqual(err, "")
        XCTAssertEqual(status, 0)
        XCTAssertEqual(
            out.split(separator: "\n").prefix(2).map(String.init),
            ["acme: ACME analytics SDK (a test profile)", "(from \(real)/real/acme.profile)"])
    }

    /// The parser's messages in Outbox's words, matched without a regular expression now.
    func test_usageErrors_matchTheirTemplatesWhole() {
        XCTAssertEqual(CLI.usageError("Missing value for '--seed <seed>'"), "--seed needs a value")
        XCTAssertEqual(CLI.usageError("Unknown option '--sed'"), "unknown option `--sed`")
        XCTAssertEqual(
            CLI.usageError("Unknown option '--sed'. Did you mean '--seed'?"),
            "unknown option `--sed`; did you mean `--seed`?")
        XCTAssertEqual(CLI.usageError("Unexpected argument 'x y'"), "unexpected argument `x y`")
        // Not a whole match: passed through, first letter lowered.
        XCTAssertEqual(CLI.usageError("Unknown option '--sed' here"), "unknown option '--sed' here")
        XCTAssertEqual(CLI.usageError("Missing value for 'a'b'"), "missing value for 'a'b'")
        XCTAssertEqual(CLI.usageError("Error: it's bad"), "error: it's bad")
    }

    /// `isBlank` is Foundation's `.whitespaces`, scalar by scalar.
    func test_isBlank_isFoundationsWhitespaces() {
        let scalars = (0...0x10FFFF).compactMap(Unicode.Scalar.init(_:))
        XCTAssertEqual(
            scalars.filter(ProfileLoader.isBlank).map(\.value),
            scalars.filter { CharacterSet.whitespaces.contains($0) }.map(\.value))
    }

    /// `replacingEvery` is `replacingOccurrences(of:with:)` for one character.
    func test_replacingEvery_isReplacingOccurrencesForOneCharacter() {
        for s in ["", "a-b--c", "\\-\\", "no dash", "é-ü-😀", "-"] {
            XCTAssertEqual(s.replacingEvery("-", with: "\\-"), s.replacingOccurrences(of: "-", with: "\\-"), s)
        }
    }
}
