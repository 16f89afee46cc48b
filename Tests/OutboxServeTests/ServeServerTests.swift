import Foundation
import OutboxCore
import OutboxServer
import OutboxTestSupport
import XCTest

@testable import OutboxServe

/// The server as real clients meet it: curl (keep-alive, chunked bodies,
/// `Expect: 100-continue`, gzip, a body too big) and each answer a plan can
/// give (a status with Retry-After, a held answer, a lost one, the network
/// off and back). The server runs in-process on a free port.
final class ServeServerTests: XCTestCase {
    /// A server on a free port playing `script`; stopped at the end of the test.
    func serve(_ script: String = "", idField: String? = nil) throws -> ServeServer {
        guard case .success(let s) = ServeScript.parse(script, file: "t.outbox") else {
            XCTFail("bad script")
            throw XCTSkip("bad script")
        }
        let server = try ServeServer(
            host: "127.0.0.1", port: 0, hub: ServeHub(ServeSession(script: s, idField: idField)))
        addTeardownBlock { server.shutdown() }
        return server
    }

    func curl(_ args: [String]) throws -> (Int32, String, String) {
        try runProgram("/usr/bin/curl", ["-sS", "--max-time", "10"] + args)
    }

    func url(_ s: ServeServer, _ path: String) -> String { "http://127.0.0.1:\(s.port)" + path }

    static let segmentBody =
        #"{"batch":[{"type":"track","event":"signup","messageId":"m-1"},{"type":"track","event":"buy","messageId":"m-2"}]}"#

    func tmp(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dir = NSTemporaryDirectory() + "serve-tests-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func test_curl_keepAliveChunkedAndExpectContinue_areReadAsOneEventsEach() throws {
        let s = try serve()
        let body = try tmp("segment.json", Array(Self.segmentBody.utf8))
        // Two requests on one connection (curl reuses it), one chunked, one with Expect.
        let (status, out, err) = try curl([
            "-v", "-H", "Content-Type: application/json", "--data-binary", "@" + body, url(s, "/v1/batch"),
            "--next", "-H", "Transfer-Encoding: chunked", "-H", "Expect: 100-continue", "--data-binary", "@" + body,
            url(s, "/v1/batch"),
        ])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, #"{"success":true}{"success":true}"#)
        XCTAssertTrue(err.contains("HTTP/1.1 100 Continue"), err)
        XCTAssertTrue(err.contains("Re-using existing connection") || err.contains("Reusing existing"), err)
        let snap = s.hub.snapshot
        XCTAssertEqual(snap.requests.count, 2)
        XCTAssertEqual(snap.events.map(\.name), ["signup", "buy"])
        XCTAssertEqual(snap.events.map(\.attempts.count), [2, 2])
        XCTAssertEqual(snap.events.map(\.format), [.segment, .segment])
    }

    func test_gzipBody_isInflated_andABombIsRefusedByItsCap() throws {
        let s = try serve()
        let gz = try tmp("body.json.gz", gzip(Array(Self.segmentBody.utf8)))
        var (status, _, err) = try curl([
            "-H", "Content-Encoding: gzip", "--data-binary", "@" + gz, url(s, "/v1/batch"),
        ])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(s.hub.snapshot.events.map(\.id), ["m-1", "m-2"])
        // 40 MB of zeros in about 40 KB: refused when the inflated bytes pass 32 MB.
        let bomb = try tmp("bomb.gz", gzip([UInt8](repeating: 0, count: 40 << 20)))
        (status, _, err) = try curl(["-H", "Content-Encoding: gzip", "--data-binary", "@" + bomb, url(s, "/v1/batch")])
        XCTAssertEqual(status, 0, err)
        let last = s.hub.snapshot.requests.last
        XCTAssertNil(last?.format)
        XCTAssertEqual(last?.problem, "gzip body: the body inflates to more than 33554432 bytes")
        // Not gzip at all.
        let notGzip = try tmp("plain.gz", Array("hello".utf8))
        (status, _, err) = try curl([
            "-H", "Content-Encoding: gzip", "--data-binary", "@" + notGzip, url(s, "/v1/batch"),
        ])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            s.hub.snapshot.requests.last?.problem,
            "gzip body: the body is not valid compressed data (incorrect header check)")
    }

    func test_aBodyPast16MB_isAnswered413AndTheServerGoesOn() throws {
        let s = try serve()
        let big = try tmp("big.json", [UInt8](repeating: UInt8(ascii: "x"), count: (16 << 20) + 1))
        let (status, out, err) = try curl([
            "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@" + big, url(s, "/v1/batch"),
        ])
        XCTAssertTrue(status == 0 || status == 55, "\(status) \(err)")
        XCTAssertEqual(out, "413")
        let (again, _, e2) = try curl(["-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(again, 0, e2)
        XCTAssertEqual(s.hub.snapshot.events.count, 2)
    }

    func test_answers_statusWithRetryAfter_heldLostAndTheNetworkOffAndBack() throws {
        let s = try serve(
            """
            at 0 server 429 retry-after 10s
            at 1s server timeout
            at 2s server lost
            at 3s network offline
            at 4s network online
            """)
        var (status, out, err) = try curl(["-i", "-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 0, err)
        XCTAssertTrue(out.hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"), out)
        XCTAssertTrue(out.contains("Retry-After: 10\r\n"), out)
        wait(until: 1100, s)
        (status, _, err) = try runProgram(
            "/usr/bin/curl", ["-sS", "--max-time", "1", "-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 28, "held: curl times out: \(err)")
        wait(until: 2100, s)
        (status, _, err) = try curl(["-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 52, "lost: an empty reply: \(err)")
        wait(until: 3200, s)
        (status, _, err) = try curl(["-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 7, "offline: refused: \(err)")
        wait(until: 4200, s)
        (status, out, err) = try curl(["-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, #"{"success":true}"#)
        let snap = s.hub.snapshot
        XCTAssertEqual(snap.requests.map(\.answer), [.retryAfter(429, 10_000), .timeout, .lost, .ok])
        XCTAssertEqual(snap.events.map(\.attempts.count), [4, 4])
        XCTAssertEqual(snap.events.map(\.delivered), [true, true])
    }

    /// `reset`: the request is read and recorded, then the connection is reset
    /// (a TCP RST): curl reports a failure receiving (exit 56), not an empty reply.
    func test_reset_isATCPResetAfterTheRequestWasRead() throws {
        let s = try serve("at 0 server reset x1\n")
        var (status, _, err) = try curl(["-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 56, "reset: \(err)")
        XCTAssertTrue(err.lowercased().contains("reset"), err)
        (status, _, err) = try curl(["-d", Self.segmentBody, url(s, "/v1/batch")])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(s.hub.snapshot.requests.map(\.answer), [.reset, .ok])
    }

    func test_anUnreadableRequest_isRecordedAndStillAnsweredByThePlan() throws {
        let s = try serve("at 0 server 503 always")
        let (status, out, err) = try curl(["-o", "/dev/null", "-w", "%{http_code}", url(s, "/favicon.ico")])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, "503")
        let r = s.hub.snapshot.requests
        XCTAssertEqual(r.count, 1)
        XCTAssertNil(r[0].format)
        XCTAssertEqual(r[0].problem, "no wire format has GET /favicon.ico with a body that is not JSON")
    }

    func test_genericJSON_readsTheNamedIdField() throws {
        let s = try serve(idField: "eid")
        let (status, _, err) = try curl([
            "-d", #"{"items":[{"eid":"a1","name":"open"},{"eid":"a2","name":"close"}]}"#, url(s, "/ingest"),
        ])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(
            s.hub.snapshot.events.map { "\($0.name)=\($0.id) \($0.format)" }, ["open=a1 generic", "close=a2 generic"])
    }

    /// Steps the hub's script to `ms` after its start (the server does on each request; tests wait for it).
    func wait(until ms: Millis, _ s: ServeServer) {
        while s.hub.now() < ms { usleep(20_000) }
        try? s.follow(online: s.hub.tick())
    }

    func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let path = try tmp("raw-\(bytes.count)", bytes)
        let (status, _, err) = try runProgram("/bin/gzip", ["-kf", path])
        XCTAssertEqual(status, 0, err)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
    }

    /// Hostile clients: bytes that are no HTTP and a 200 KB header are answered
    /// 400 and closed (SwiftNIO's parser); twenty connections trickling a request
    /// that never ends hold no one else up. Raw sockets, from python3.
    func test_hostileClients_garbageHugeHeadersAndATrickle_leaveItUp() throws {
        let s = try serve()
        let script = """
            import socket, sys, time
            port = int(sys.argv[1])
            def talk(data):
                c = socket.create_connection(("127.0.0.1", port)); c.settimeout(5)
                c.sendall(data); r = c.recv(64); c.close()
                return r.split(b"\\r\\n")[0].decode()
            print(talk(b"\\x00\\xff\\x13garbage\\r\\n\\r\\n"))
            print(talk(b"POST /v1/batch HTTP/1.1\\r\\nHost: x\\r\\nX-Big: " + b"a" * 200000 + b"\\r\\n\\r\\n"))
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
            for c in held: c.sendall(b"POST /v1/ba")
            time.sleep(1)
            body = b'{"batch":[{"type":"track","event":"a","messageId":"m1"}]}'
            print(talk(b"POST /v1/batch HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body))
            """
        let path = try tmp("hostile.py", Array(script.utf8))
        let (status, out, err) = try runProgram("/usr/bin/env", ["python3", path, String(s.port)])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, "HTTP/1.1 400 Bad Request\nHTTP/1.1 400 Bad Request\nHTTP/1.1 200 OK\n")
        XCTAssertEqual(s.hub.snapshot.events.map(\.id), ["m1"])
    }

    /// A flood on loopback: 40 connections at once, 25 keep-alive POSTs each,
    /// every one answered and every event counted; then, past the connection
    /// limit (10 here), new connections are closed at once, and once those held
    /// are gone a new one is served again.
    func test_aFloodFromManyConnections_isAnswered_andPastTheLimitConnectionsAreClosed() throws {
        guard case .success(let plan) = ServeScript.parse("", file: "t.outbox") else { return XCTFail() }
        let s = try ServeServer(
            host: "127.0.0.1", port: 0, hub: ServeHub(ServeSession(script: plan)), maxConnections: 10)
        addTeardownBlock { s.shutdown() }
        let flood = """
            import socket, sys, threading
            port = int(sys.argv[1])
            ok = [0]
            lock = threading.Lock()
            def conn(k):
                c = socket.create_connection(("127.0.0.1", port)); c.settimeout(10)
                f = c.makefile("rb")
                for n in range(25):
                    body = b'{"batch":[{"type":"track","event":"f","messageId":"m%d-%d"}]}' % (k, n)
                    c.sendall(b"POST /v1/batch HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body)
                    status = f.readline()
                    length = 0
                    while True:
                        h = f.readline()
                        if h in (b"\\r\\n", b""): break
                        if h.lower().startswith(b"content-length:"): length = int(h.split(b":")[1])
                    f.read(length)
                    if status.startswith(b"HTTP/1.1 200"):
                        with lock: ok[0] += 1
                c.close()
            # 40 at once would pass the limit of 10: in waves of 8.
            for wave in range(5):
                ts = [threading.Thread(target=conn, args=(wave * 8 + i,)) for i in range(8)]
                for t in ts: t.start()
                for t in ts: t.join()
            print(ok[0])
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
            extra = socket.create_connection(("127.0.0.1", port)); extra.settimeout(5)
            try:
                extra.sendall(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                print("closed" if extra.recv(64) == b"" else "served")
            except (ConnectionResetError, BrokenPipeError):
                print("closed")
            for c in held: c.close()
            import time; time.sleep(0.5)
            c = socket.create_connection(("127.0.0.1", port)); c.settimeout(5)
            c.sendall(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            print(c.recv(64).split(b"\\r\\n")[0].decode())
            """
        let path = try tmp("flood.py", Array(flood.utf8))
        let (status, out, err) = try runProgram("/usr/bin/env", ["python3", path, String(s.port)])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, "1000\nclosed\nHTTP/1.1 200 OK\n")
        XCTAssertEqual(s.hub.reading { $0.events.count }, 1000)
    }

    /// The live screen's breakpoint on a real request: curl gets no answer while
    /// it is held, then the status chosen (and its Retry-After); a client that
    /// gives up while held is recorded as timed out; a stop closes what is held.
    func test_breakpoint_holdsARealRequest_untilReleasedWithTheChosenStatus() throws {
        let s = try serve()
        let body = try tmp("held.json", Array(Self.segmentBody.utf8))
        s.changing { session, t in session.arm(.next, at: t) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int32, String, String) = (-1, "", "")
        let target = url(s, "/v1/batch")
        Thread.detachNewThread {
            result =
                (try? runProgram(
                    "/usr/bin/curl",
                    [
                        "-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code} %header{retry-after}",
                        "--data-binary", "@" + body, target,
                    ])) ?? (-1, "", "")
            done.signal()
        }
        var token: Int?
        for _ in 0..<100 where token == nil {
            token = s.reading { $0.held.first?.token }
            if token == nil { usleep(50_000) }
        }
        guard let token else { return XCTFail("never held") }
        XCTAssertEqual(done.wait(timeout: .now() + 1), .timedOut, "answered while held")
        XCTAssertEqual(s.reading { $0.requests.count }, 0)
        XCTAssertTrue(s.release(token, answer: .retryAfter(503, 5000)))
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(result.0, 0, result.2)
        XCTAssertEqual(result.1, "503 5")
        XCTAssertEqual(s.reading { $0.requests.map(\.answer) }, [.retryAfter(503, 5000)])
        XCTAssertFalse(s.release(token, answer: .ok), "released once")

        // A client that gives up (curl --max-time 1) while held: recorded as timed out.
        s.changing { session, t in session.arm(.next, at: t) }
        let (st, _, _) = try runProgram(
            "/usr/bin/curl", ["-sS", "--max-time", "1", "--data-binary", "@" + body, url(s, "/v1/batch")])
        XCTAssertEqual(st, 28, "curl timed out")
        for _ in 0..<100 where s.reading({ $0.requests.count }) < 2 { usleep(50_000) }
        XCTAssertEqual(s.reading { $0.requests.map(\.answer) }, [.retryAfter(503, 5000), .timeout])
        XCTAssertTrue(s.reading { $0.held.isEmpty })

        // Held when the server stops: closed unanswered, recorded as lost.
        s.changing { session, t in session.arm(.next, at: t) }
        let stopped = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var last: Int32 = -1
        Thread.detachNewThread {
            last =
                (try? runProgram(
                    "/usr/bin/curl",
                    ["-sS", "--max-time", "10", "-o", "/dev/null", "--data-binary", "@" + body, target]))?
                .0 ?? -1
            stopped.signal()
        }
        for _ in 0..<100 where s.reading({ $0.held.isEmpty }) { usleep(50_000) }
        s.shutdown()
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(last, 52, "curl: empty reply from server")
        XCTAssertEqual(s.hub.snapshot.requests.last?.answer, .lost)
    }
}
