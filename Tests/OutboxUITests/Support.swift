import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxCLI
@testable import OutboxCore
@testable import OutboxUI

/// Compares a screen with a saved snapshot; prints a line diff when they differ.
/// `RECORD_SNAPSHOTS=1` writes the snapshot instead; a missing snapshot is written
/// and fails, never passes silently.
func assertSnapshot(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
    let path = packageRoot + "/Tests/OutboxUITests/Snapshots/" + name + ".txt"
    let actual = text + "\n"
    let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
    guard !record, let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
        try? actual.write(toFile: path, atomically: true, encoding: .utf8)
        if !record {
            XCTFail("snapshot \(name) did not exist; recorded it, check it and run again", file: file, line: line)
        }
        return
    }
    guard expected != actual else { return }
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    var diff: [String] = []
    for i in 0..<max(e.count, a.count) {
        let el = i < e.count ? String(e[i]) : "<none>"
        let al = i < a.count ? String(a[i]) : "<none>"
        if el != al { diff.append("line \(i + 1):\n  expected: \(el)\n  actual:   \(al)") }
    }
    XCTFail(
        "snapshot \(name) differs (RECORD_SNAPSHOTS=1 re-records):\n" + diff.prefix(12).joined(separator: "\n"),
        file: file, line: line)
}

/// A scripted session: keys and clock ticks, no sleeps, no terminal.
struct Session {
    var model: AppModel
    var width = 80
    var height = 24

    init(_ profile: Profile, settings: [(String, String)] = [], width: Int = 80, height: Int = 24) {
        var s = Settings(profile: profile)
        for (k, v) in settings { XCTAssertNil(s.set(k, v, profile: profile)) }
        model = AppModel(sim: Simulation(profile: profile, settings: s))
        self.width = width
        self.height = height
        model.setScreen(width: width, height: height)
        model.layOut()
        model.perform(.appLaunched)
    }

    /// Types keys: each character is one key press.
    @discardableResult
    mutating func type(_ keys: String) -> [UIEffect] {
        var effects: [UIEffect] = []
        for c in keys.unicodeScalars {
            if let e = press(.char(c)) { effects.append(e) }
        }
        return effects
    }

    @discardableResult
    mutating func press(_ key: Key) -> UIEffect? {
        let e = model.handle(key)
        // The frame after a key: the screen's size, then its layout (as the loop makes them).
        model.setScreen(width: width, height: height)
        model.layOut()
        return e
    }

    /// A `:` command, typed and entered.
    mutating func command(_ text: String) {
        press(.char(":"))
        type(text)
        press(.enter)
    }

    /// Lets virtual time pass; the frame after it is laid out.
    mutating func wait(_ ms: Millis) {
        model.tick(to: model.sim.now + ms)
        model.layOut()
    }

    func screen(_ w: Int? = nil, _ h: Int? = nil, glyphs: Glyphs = .unicode) -> ScreenBuffer {
        AppView.render(model, width: w ?? width, height: h ?? height, glyphs: glyphs)
    }

    func states(_ name: String) -> [String] {
        model.sim.requests(named: name).map { model.sim.request($0).state.word }
    }
}

extension AppModel {
    /// A frame's layout made and kept, as the loop does before each frame
    /// (the keys and clicks after it go by it).
    mutating func layOut() { laidOut(AppView.layout(for: self)) }
}

/// One letter per role family, for role-layer snapshots.
let roleLegend: [Role: Character] = [
    .header: "H", .headerAccent: "A", .online: "N", .offline: "F", .consentGranted: "G", .consentDenied: "D",
    .consentUndecided: "U", .tabActive: "T", .banner: "B", .rowSelected: "S", .statePending: "p", .stateInFlight: "i",
    .stateRetrying: "r", .stateQueued: "q", .stateDelivered: "d", .stateDropped: "x", .timelineFail: "!",
    .timelineOk: "o", .timelineWait: "-", .timelineOffline: "~", .timelineAttempt: "a", .statusBar: "_",
    .statusKey: "K", .error: "E", .notice: "n", .logWarning: "W", .logError: "R",
]

/// The pid of a process that has exited (a child `sh -c 'exit 0'`, waited
/// for): a file named with it was left by a process that is gone.
func goneProcessID() throws -> Int32 {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/sh")
    child.arguments = ["-c", "exit 0"]
    try child.run()
    child.waitUntilExit()
    XCTAssertEqual(kill(child.processIdentifier, 0), -1, "the child's pid is free")
    return child.processIdentifier
}

/// A test case with a folder of its own, made before each test under the
/// temporary folder (`outbox-NAME-PID-RANDOM`) and removed after it.
class FolderTestCase: XCTestCase {
    /// The folder, without a slash at the end.
    var dir = ""
    /// The middle of the folder's name: which tests made it.
    var folderName: String { "test" }

    override func setUp() {
        super.setUp()
        dir =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "outbox-\(folderName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            ).path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
        super.tearDown()
    }
}
