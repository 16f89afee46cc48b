// Shared by the device-store targets (`// fuzz-shared: Device.swift`): a
// directory of their own, fresh devices to start from, the reported findings
// to step around, and what a user does with a device once it is on disk.
import CSQLite
import OutboxCLI
import OutboxCore
import OutboxStore
import OutboxUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The input, read front to back; past its end every read is 0.
struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    var isEmpty: Bool { at >= bytes.count }
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }
    mutating func byte() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }
    mutating func int64() -> Int64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return Int64(bitPattern: v)
    }
    mutating func data(max: Int) -> [UInt8] {
        let n = min(Int(byte()), max)
        return (0..<n).map { _ in byte() }
    }
}

// MARK: Files

/// A directory of this process's own, `outbox-fuzz-PID-XXXXXX`, removed at exit:
/// under /dev/shm where there is one (no disk writes), else $TMPDIR or /tmp.
nonisolated(unsafe) var base = ""
/// A fresh device of each profile, as the store creates it (bytes of the file).
nonisolated(unsafe) var freshDevices: [Profile: [UInt8]] = [:]
/// Where each input's device goes.
var workDir: String { base + "/work" }

func removeTree(_ path: String) {
    guard let d = opendir(path) else { return }
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name == "." || name == ".." { continue }
        let p = path + "/" + name
        if unlink(p) != 0 { removeTree(p) }
    }
    closedir(d)
    rmdir(path)
}

func readFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        out += buf[0..<n]
    }
    return out
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { fatalError("cannot write \(path)") }
    defer { close(fd) }
    var off = 0
    while off < bytes.count {
        let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { fatalError("cannot write \(path)") }
        off += n
    }
}

/// A run that crashed did not remove its directory (atexit handlers do not run
/// then): the directories of processes no longer running go now. The process
/// id is in the name; a directory without one, or of a live process, stays.
func removeDirectoriesOfDeadRuns(in parent: String) {
    guard let d = opendir(parent) else { return }
    var dead: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let parts = name.split(separator: "-")
        guard parts.count == 4, parts[0] == "outbox", parts[1] == "fuzz", let pid = pid_t(parts[2]) else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH { dead.append(parent + "/" + name) }
    }
    closedir(d)
    for path in dead { removeTree(path) }
}

func setUpFiles() {
    guard base.isEmpty else { return }
    let parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
    removeDirectoriesOfDeadRuns(in: parent)
    var template = Array((parent + "/outbox-fuzz-\(getpid())-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a directory in \(parent)") }
    base = String(cString: made)
    atexit { removeTree(base) }
    mkdir(base + "/fresh", 0o755)
    mkdir(workDir, 0o755)
    for p in Profile.allCases {
        do {
            try SQLiteDeviceStore(directory: base + "/fresh", profile: p).close()
        } catch {
            fatalError("cannot make a fresh device: \(error)")
        }
        freshDevices[p] = readFile(SQLiteDeviceStore.databasePath(directory: base + "/fresh", profile: p))
    }
}

/// Puts a database file in the work directory as a profile's device.
func placeDevice(_ bytes: [UInt8], _ profile: Profile) -> String {
    let path = SQLiteDeviceStore.databasePath(directory: workDir, profile: profile)
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    if !bytes.isEmpty { writeFile(path, bytes) }
    return path
}


// MARK: What a user does with a device

/// `outbox state show` in both formats, then the live screen's start on the
/// device (open, launch, draw), then up to 64 actions read from `r` (time
/// passing, consent, the network, quits and relaunches, which write back to
/// the device, keys), then frames at two sizes. Bounded by 20,000 transitions.
func useDevice(_ profile: Profile, _ r: inout Reader) {
    for format in ["table", "jsonl"] {
        _ = CLI.main(["state", "show", "--state-dir", workDir, "--profile", profile.rawValue, "--format", format],
                     console: .capturing())
    }
    guard let store = try? SQLiteDeviceStore(directory: workDir, profile: profile) else { return }
    defer { store.close() }
    var model = AppModel(sim: Simulation(profile: profile, store: store))
    model.setScreen(width: 80, height: 24)
    model.laidOut(AppView.layout(for: model))
    model.perform(.appLaunched)
    _ = AppView.render(model, width: 80, height: 24)
    for _ in 0..<64 {
        guard !r.isEmpty, store.failure == nil, model.sim.transitionCount < 20_000 else { break }
        switch r.byte() % 12 {
        case 0: model.perform(.appQuit)
        case 1: model.perform(.appLaunched)
        case 2: model.perform(.consentGranted)
        case 3: model.perform(.consentDenied)
        case 4: model.perform(.getInstanceCalled)
        case 5: model.perform(r.byte() % 2 == 0 ? .networkWentOffline : .networkWentOnline)
        case 6:
            let answers: [Answer] = [.ok, .status(503), .status(400), .timeout, .lost, .partial]
            model.perform(.serverPlanned(answers[Int(r.byte()) % answers.count], r.byte() % 2 == 0 ? .always : .times(2)))
        case 7: model.perform(.eventTracked(TrackedEvent(name: "e", value: Amount(micros: 1), currency: "USD")))
        case 8: _ = model.handle([Key.down, .up, .enter, .tab, .end, .home, .escape][Int(r.byte()) % 7])
        default: model.tick(to: model.sim.now + Millis(r.byte()) * 250)
        }
        // A frame after each step, as the live loop lays one out before it draws.
        model.laidOut(AppView.layout(for: model))
    }
    _ = AppView.render(model, width: 80, height: 24)
    _ = AppView.render(model, width: 200, height: 60)
}

// MARK: Start-up

/// libFuzzer's start-up for every target using these helpers: the work
/// directory, and seeds written by the target's own `makeSeeds` when
/// OUTBOX_FUZZ_MAKE_SEEDS=DIR.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    setUpFiles()
    if let dir = getenv("OUTBOX_FUZZ_MAKE_SEEDS").map({ String(cString: $0) }) { makeSeeds(dir) }
    return 0
}
