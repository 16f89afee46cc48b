import Foundation
import XCTest

@testable import OutboxCLI
@testable import OutboxCore

/// `outbox compare` as a user sees it: whole outputs at 80 and 160 columns and
/// in JSONL, `expect on` in `run` and `compare`, skips, exit statuses and errors.
final class CompareTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("outbox-compare-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Writes a scenario file; returns its path.
    private func write(_ text: String, _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `outbox` in the temporary directory, files named by their names
    /// alone (as a user in that directory would), so lines do not depend on where it is.
    private func run(_ args: [String]) -> (Int32, String, String) {
        let fm = FileManager.default
        let back = fm.currentDirectoryPath
        fm.changeCurrentDirectoryPath(dir.path)
        defer { fm.changeCurrentDirectoryPath(back) }
        let d = dir.path + "/"
        return cli(args.map { $0.hasPrefix(d) ? String($0.dropFirst(d.count)) : $0 })
    }

    /// A 403, a 503 twice, then offline: iOS, Android and Flutter part three ways.
    static let story = #"""
        # A purchase answered 403, then a 503 twice, then offline.
        profile ios
        compare ios,android,flutter
        set retry.delays 2s
        at 0 launch
        at 0 getinstance
        at 100ms server 403
        at 100ms track purchase
        at 1s server 503 x2
        at 1s ping
        at 5s network offline
        at 5s screen home
        at 8s network online
        expect at 1s dropped purchase rejected
        expect on android at 1s state purchase queued
        expect on android,flutter at 30s state ping dropped
        """#

    func testTextAt80ColumnsAbbreviatesAndFitsThreeProfiles() throws {
        let path = try write(Self.story, "story.outbox")
        let (status, out, err) = run(["compare", path, "--width", "80"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(err, "")
        XCTAssertEqual(out, #"""
            == story.outbox: ios, android, flutter
            skipped story.outbox:4 `set retry.delays 2s` on android, flutter:
              setting 'retry.delays' exists only on linktrail, ios
            skipped story.outbox:6 `at 0 getinstance` on ios, flutter:
              getinstance is UserCom.getInstance() on Android only (AND-3)
              request   ios              android        flutter
            ! purchase  rejected  1 - F  queued    1 S  rejected  1 -
                first differs at 00:00:00.300:
                  ios      in-flight → dropped     attempt 1  403 rejected       IOS-3
                  android  in-flight → queued      attempt 1  403                AND-4
                  flutter  in-flight → dropped     attempt 1  403 rejected       FL-3
            ! ping      delivered 3 - T  not-saved 1 -  not-saved 1 -
                first differs at 00:00:01.200:
                  ios      in-flight → retrying    attempt 1  503                IOS-4
                  android  in-flight → dropped     attempt 1  503 not-saved      AND-2
                  flutter  in-flight → dropped     attempt 1  503 not-saved      FL-3
            ! home      delivered 1 - T  queued    1 S  queued    1 S
                first differs at 00:00:05.000:
                  ios      new → queued                                          IOS-5
                  android  new → pending                                         AND-1
                  flutter  new → pending                                         FL-1
            cells: state or drop reason, attempts, S saved, iOS completion T true F false
            ios      2 delivered 1 dropped · 5 att · 5 rcvd 2 cntd · 1/1 checks · end 8.2s
            android  2 queued 1 dropped · 3 att · 2 rcvd 0 cntd · 2/2 checks · end 30s
            flutter  1 queued 2 dropped · 3 att · 2 rcvd 0 cntd · 1/1 checks · end 30s
            """# + "\n")
        for line in out.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    func testTextAt160ColumnsUsesFullWords() throws {
        let path = try write(Self.story, "story.outbox")
        let (status, out, err) = run(["compare", path, "--width", "160"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, #"""
            == story.outbox: ios, android, flutter
            skipped story.outbox:4 `set retry.delays 2s` on android, flutter: setting 'retry.delays' exists only on linktrail, ios
            skipped story.outbox:6 `at 0 getinstance` on ios, flutter: getinstance is UserCom.getInstance() on Android only (AND-3)
              request   ios                                              android                               flutter
            ! purchase  dropped: rejected  1 attempt   completion false  queued              1 attempt  saved  dropped: rejected   1 attempt
                first differs at 00:00:00.300:
                  ios      in-flight → dropped     attempt 1  403 rejected       IOS-3
                  android  in-flight → queued      attempt 1  403                AND-4
                  flutter  in-flight → dropped     attempt 1  403 rejected       FL-3
            ! ping      delivered          3 attempts  completion true   dropped: not-saved  1 attempt         dropped: not-saved  1 attempt
                first differs at 00:00:01.200:
                  ios      in-flight → retrying    attempt 1  503                IOS-4
                  android  in-flight → dropped     attempt 1  503 not-saved      AND-2
                  flutter  in-flight → dropped     attempt 1  503 not-saved      FL-3
            ! home      delivered          1 attempt   completion true   queued              1 attempt  saved  queued              1 attempt  saved
                first differs at 00:00:05.000:
                  ios      new → queued                                          IOS-5
                  android  new → pending                                         AND-1
                  flutter  new → pending                                         FL-1
            ios      3 requests: 2 delivered, 1 dropped · 5 attempts · 5 received, 2 counted · checks: 1 passed, 0 failed · ended at 00:00:08.200
            android  3 requests: 2 queued, 1 dropped · 3 attempts · 2 received, 0 counted · checks: 2 passed, 0 failed · ended at 00:00:30.000
            flutter  3 requests: 1 queued, 2 dropped · 3 attempts · 2 received, 0 counted · checks: 1 passed, 0 failed · ended at 00:00:30.000
            """# + "\n")
        for line in out.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 160, String(line)) }
    }

    /// Without --width and with no terminal, COLUMNS is not read by the test's
    /// process here; the width falls back to 80 or COLUMNS: either way three
    /// profiles' lines fit in it.
    func testDefaultWidthFitsTheTerminalOrEighty() throws {
        let path = try write(Self.story, "story.outbox")
        let (status, out, _) = run(["compare", path])
        XCTAssertEqual(status, 0)
        let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 >= 20 ? $0 : nil } ?? 80
        for line in out.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, max(columns, 80), String(line)) }
    }

    static let small = #"""
        profile android
        at 0 launch
        at 0 getinstance
        at 100ms server 403
        at 100ms track purchase
        expect on android at 1s state purchase queued
        expect on ios at 1s dropped purchase rejected
        """#

    func testJSONLIsRunsLinesWithProfileThenSkippedAndDiverged() throws {
        let path = try write(Self.small, "small.outbox")
        let (status, out, err) = run(["compare", path, "--profiles", "ios,android", "--format", "jsonl"])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, #"""
            {"skipped":{"file":"small.outbox","line":3,"text":"at 0 getinstance","profiles":["ios"],"reason":"getinstance is UserCom.getInstance() on Android only (AND-3)"}}
            {"t":0,"profile":"ios","log":"app launched (launch 1)","source":"outbox"}
            {"t":0.1,"profile":"ios","log":"backend will answer: 403 ×1","source":"outbox","rule":"ANS"}
            {"t":0.1,"profile":"ios","id":1,"name":"purchase","kind":"event","from":"new","to":"pending","attempt":0,"rule":"IOS-1"}
            {"t":0.1,"profile":"ios","id":1,"name":"purchase","kind":"event","from":"pending","to":"in-flight","attempt":1,"rule":"IOS-2"}
            {"t":0.3,"profile":"ios","id":1,"name":"purchase","kind":"event","from":"in-flight","to":"dropped","attempt":1,"rule":"IOS-3","status":403,"reason":"rejected"}
            {"t":0.3,"profile":"ios","log":"completion(#1 'purchase'): false (rejected 403)","source":"completion","id":1,"rule":"IOS-3"}
            {"t":1,"profile":"ios","expect":"expect on ios at 1s dropped purchase rejected","ok":true,"line":7}
            {"t":0,"profile":"android","log":"app launched (launch 1)","source":"outbox"}
            {"t":0,"profile":"android","log":"UserCom.getInstance() (launch): resending 0 saved","source":"sdk","rule":"AND-3"}
            {"t":0,"profile":"android","log":"UserCom.getInstance() (call): resending 0 saved","source":"sdk","rule":"AND-3"}
            {"t":0.1,"profile":"android","log":"backend will answer: 403 ×1","source":"outbox","rule":"ANS"}
            {"t":0.1,"profile":"android","id":1,"name":"purchase","kind":"event","from":"new","to":"pending","attempt":0,"rule":"AND-1"}
            {"t":0.1,"profile":"android","id":1,"name":"purchase","kind":"event","from":"pending","to":"in-flight","attempt":1,"rule":"AND-1"}
            {"t":0.3,"profile":"android","id":1,"name":"purchase","kind":"event","from":"in-flight","to":"queued","attempt":1,"rule":"AND-4","status":403}
            {"t":1,"profile":"android","expect":"expect on android at 1s state purchase queued","ok":true,"line":6}
            {"diverged":{"file":"small.outbox","name":"purchase","occurrence":1,"at":0.3,"ios":{"id":1,"state":"dropped","reason":"rejected","attempts":1,"saved":false,"completion":"false","rule":"IOS-3"},"android":{"id":1,"state":"queued","attempts":1,"saved":true,"rule":"AND-4"}}}
            """# + "\n")
        XCTAssertEqual(err, #"""
            ios      1 request: 1 dropped · 1 attempt · 1 received, 0 counted · checks: 1 passed, 0 failed · ended at 00:00:01.000
            android  1 request: 1 queued · 1 attempt · 1 received, 0 counted · checks: 1 passed, 0 failed · ended at 00:00:01.000
            """# + "\n")
        // Every line is one JSON object; jq-style questions have answers.
        for line in out.split(separator: "\n") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
    }
}
