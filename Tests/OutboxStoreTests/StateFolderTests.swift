import Foundation
import OutboxTestSupport
import XCTest

@testable import OutboxStore

/// Where the devices live by default (docs/install.md, "Where Outbox keeps things").
final class StateFolderTests: XCTestCase {
    /// Runs `body` with XDG_STATE_HOME and HOME set (nil: unset), then puts them back.
    func with(state: String?, home: String?, _ body: () -> Void) {
        let saved = ["XDG_STATE_HOME", "HOME"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        defer { for (k, v) in saved { if let v { setenv(k, v, 1) } else { unsetenv(k) } } }
        for (k, v) in [("XDG_STATE_HOME", state), ("HOME", home)] {
            if let v { setenv(k, v, 1) } else { unsetenv(k) }
        }
        body()
    }

    func test_defaultDirectory_followsXDGStateHome_andIgnoresARelativeOne() {
        var got: [String] = []
        with(state: "/srv/state", home: "/home/ana") { got.append(SQLiteDeviceStore.defaultDirectory()) }
        with(state: nil, home: "/home/ana") { got.append(SQLiteDeviceStore.defaultDirectory()) }
        with(state: "", home: "/home/ana") { got.append(SQLiteDeviceStore.defaultDirectory()) }
        with(state: "state", home: "/home/ana") { got.append(SQLiteDeviceStore.defaultDirectory()) }
        XCTAssertEqual(
            got,
            [
                "/srv/state/outbox", "/home/ana/.local/state/outbox", "/home/ana/.local/state/outbox",
                "/home/ana/.local/state/outbox",
            ])
    }

    /// With HOME unset, empty or relative, the home folder is the user
    /// database's, not the working folder (the state would move with `cd`).
    func test_defaultDirectory_withoutAUsableHome_usesTheUserDatabase() throws {
        let pw = try XCTUnwrap(getpwuid(getuid()))
        let home = String(cString: pw.pointee.pw_dir)
        try XCTSkipUnless(home.hasPrefix("/"), "this user has no home folder in the user database")
        for bad in [nil, "", "relative/home"] as [String?] {
            with(state: nil, home: bad) {
                XCTAssertEqual(SQLiteDeviceStore.defaultDirectory(), home + "/.local/state/outbox", "HOME=\(bad ?? "unset")")
            }
        }
    }
}
