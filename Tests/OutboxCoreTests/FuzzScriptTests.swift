import Foundation
import OutboxTestSupport
import XCTest

/// `scripts/fuzz` compiles the package's modules itself (instrumented, outside
/// SwiftPM), so its list of each module's dependencies must follow Package.swift:
/// when a module gained a dependency (OutboxFoundation), CI's fuzz step could
/// not compile OutboxCLI. This finds such drift in `swift test`, before CI.
final class FuzzScriptTests: XCTestCase {
    /// Package.swift's Outbox targets and the Outbox modules each depends on.
    func packageDependencies() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)
        var out: [String: Set<String>] = [:]
        // Each `.target(name: "X", dependencies: [...])` (regular targets only).
        for part in text.components(separatedBy: ".target(").dropFirst() {
            guard let nameStart = part.range(of: "name: \""),
                let nameEnd = part[nameStart.upperBound...].firstIndex(of: "\"")
            else { continue }
            let name = String(part[nameStart.upperBound..<nameEnd])
            var deps = Set<String>()
            if let d = part.range(of: "dependencies: ["), let close = part[d.upperBound...].firstIndex(of: "]") {
                for piece in part[d.upperBound..<close].split(separator: "\"") where piece.hasPrefix("Outbox") {
                    deps.insert(String(piece))
                }
                if part[d.upperBound..<close].contains("ArgumentParser") { deps.insert("ArgumentParser") }
            }
            out[name] = deps
        }
        return out
    }

    /// `deps()` of scripts/fuzz: `Module) echo "A B" ;;` lines.
    func scriptDependencies() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: packageRoot + "/scripts/fuzz", encoding: .utf8)
        var out: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("Outbox"), let paren = t.firstIndex(of: ")"), t.contains("echo \"") else { continue }
            let name = String(t[..<paren])
            let quoted = t.split(separator: "\"", omittingEmptySubsequences: false)
            guard quoted.count >= 2 else { continue }
            out[name] = Set(quoted[1].split(separator: " ").map(String.init))
        }
        return out
    }

    func test_fuzzScriptsModuleDependencies_followPackageSwift() throws {
        let package = try packageDependencies()
        let script = try scriptDependencies()
        XCTAssertFalse(script.isEmpty, "no deps() lines found in scripts/fuzz")
        for (module, deps) in script {
            let declared = try XCTUnwrap(package[module], "scripts/fuzz knows \(module), Package.swift does not")
            XCTAssertEqual(deps, declared, "scripts/fuzz's dependencies of \(module) differ from Package.swift's")
        }
        // Every module a fuzz target names, and what it needs, is in the script.
        XCTAssertTrue(script.keys.contains("OutboxCLI") && script.keys.contains("OutboxFoundation"), "\(script.keys)")
    }
}
