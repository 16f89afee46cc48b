import CSQLite
import Dispatch
import Glibc
import OutboxCore

/// Why a device's database cannot be used: the path, and what is wrong.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// The simulated device's storage: one SQLite database per profile in a state
/// directory, in WAL mode, every change committed before the model goes on.
///
/// Only one process may write a device: a lock file beside the database is held
/// with `flock` for as long as the store is open.
public final class SQLiteDeviceStore: DeviceStore {
    /// The schema this build writes; older ones are migrated, newer ones refused.
    public static let schemaVersion: Int32 = 1
    /// `PRAGMA application_id`: "OBX1", so a foreign SQLite file is recognised.
    public static let applicationID: Int32 = 0x4F42_5831

    public let path: String
    public let directory: String
    public let profile: Profile
    private var db: OpaquePointer?
    private var lockFD: Int32 = -1
    private var statements: [String: OpaquePointer] = [:]
    private var cachedConsent: Consent = .undecided
    private var cachedInstall = false
    public private(set) var epoch: UInt64 = 0
    public private(set) var failure: String?
    /// The saved requests, read at open while `quick_check` ran beside the read;
    /// handed out by the first `loadAll` unless a write came first.
    private var preloaded: [SavedRequest]?

    /// The database file of a profile in a state directory.
    public static func databasePath(directory: String, profile: Profile) -> String {
        directory + "/" + profile.rawValue + ".sqlite"
    }

    /// The default state directory: `$XDG_STATE_HOME/outbox`, else `~/.local/state/outbox`.
    public static func defaultDirectory() -> String {
        if let x = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), !x.isEmpty { return x + "/outbox" }
        let home = getenv("HOME").map { String(cString: $0) } ?? "."
        return home + "/.local/state/outbox"
    }

    /// Whether this store only reads (`outbox state show`): no lock, no writes.
    public let readOnly: Bool

    /// Opens (creating when missing) the device of `profile` in `directory`.
    /// `readOnly` opens an existing database to look at it, without the lock.
    public init(directory: String, profile: Profile, readOnly: Bool = false) throws(StoreError) {
        self.directory = directory
        self.profile = profile
        self.readOnly = readOnly
        path = SQLiteDeviceStore.databasePath(directory: directory, profile: profile)
        if !readOnly {
            try SQLiteDeviceStore.makeDirectory(directory)
            try lock()
        }
        do {
            try checkHeader()
            try open()
            if readOnly {
                try checkReadable()
            } else {
                try migrate()
            }
            try loadDevice()
            if !readOnly { setDevice("opens", String(epoch + 1)) }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the database and lets go of the lock.
    public func close() {
        for (_, s) in statements { sqlite3_finalize(s) }
        statements = [:]
        if let db { sqlite3_close(db) }
        db = nil
        if lockFD >= 0 {
            flock(lockFD, LOCK_UN)
            Glibc.close(lockFD)
            lockFD = -1
        }
    }

    // MARK: Opening

    static func makeDirectory(_ dir: String) throws(StoreError) {
        var st = stat()
        if stat(dir, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError(path: dir, message: "is not a directory, expected a state directory")
            }
            return
        }
        var built = dir.hasPrefix("/") ? "" : "."
        for part in dir.split(separator: "/") {
            built += "/" + part
            if stat(built, &st) != 0 && mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw StoreError(path: built, message: "cannot create the state directory (\(String(cString: strerror(errno))))")
            }
        }
    }

    private func lock() throws(StoreError) {
        let lockPath = directory + "/" + profile.rawValue + ".lock"
        let fd = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StoreError(path: lockPath, message: "cannot open the lock file (\(String(cString: strerror(errno)))); is the state directory writable?")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var buf = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buf, 31, 0)
            let pid = n > 0 ? String(decoding: buf[0..<n].filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self) : "?"
            Glibc.close(fd)
            throw StoreError(path: path, message: "another Outbox (pid \(pid)) is using this device; only one may write it at a time")
        }
        ftruncate(fd, 0)
        let pid = String(getpid()) + "\n"
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        lockFD = fd
    }

    /// A file that is there but is not SQLite is refused before SQLite sees it.
    private func checkHeader() throws(StoreError) {
        var st = stat()
        guard stat(path, &st) == 0, st.st_size > 0 else { return }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError(path: path, message: "cannot read the database (\(String(cString: strerror(errno))))") }
        defer { Glibc.close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &head, 16)
        let magic = Array("SQLite format 3".utf8) + [0]
        guard n == 16, head == magic else {
            throw StoreError(path: path, message: "is not an SQLite database (a foreign or damaged file); nothing was changed. Move it aside with `outbox state reset --profile \(profile.rawValue)`")
        }
    }

    private func open() throws(StoreError) {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let rc = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        db = handle
        guard rc == SQLITE_OK else { throw error("cannot open the database", rc) }
        sqlite3_busy_timeout(db, 2000)
        // The check reads the whole file, and so does loading the saved requests,
        // which a launch needs next: on a large device the two run side by side,
        // on two connections, and nothing is written until the check said ok.
        let check = QuickCheck(path: path)
        let current = (try? scalarInt("PRAGMA user_version")) == Int64(SQLiteDeviceStore.schemaVersion)
            && Int32(truncatingIfNeeded: (try? scalarInt("PRAGMA application_id")) ?? 0) == SQLiteDeviceStore.applicationID
        if current {
            let (rows, problem) = readRows()
            if problem == nil { preloaded = rows }
        }
        let verdict = check.result()
        guard verdict == "ok" else {
            preloaded = nil
            throw StoreError(path: path, message: "the database is damaged (quick_check: \(verdict ?? "no answer")); nothing was changed. Move it aside with `outbox state reset --profile \(profile.rawValue)`")
        }
        if readOnly { return }
        let mode = try scalarText("PRAGMA journal_mode=WAL")
        guard mode == "wal" else { throw StoreError(path: path, message: "cannot switch to WAL mode (got \(mode ?? "nothing"))") }
        // NORMAL in WAL mode: a commit is in the WAL file before it returns, so a
        // killed process loses nothing; a power cut may lose the last commits but
        // never corrupts the database (docs/storage.md).
        try exec("PRAGMA synchronous=NORMAL")
    }

    /// Brings the schema to this build's version, or refuses a newer one.
    private func migrate() throws(StoreError) {
        let version = Int32(try scalarInt("PRAGMA user_version"))
        let app = Int32(truncatingIfNeeded: try scalarInt("PRAGMA application_id"))
        let tables = try scalarInt("SELECT count(*) FROM sqlite_master")
        if app != SQLiteDeviceStore.applicationID && (tables > 0 || version != 0) {
            throw StoreError(path: path, message: "is an SQLite database of some other program (application_id \(app)), not an Outbox device; nothing was changed")
        }
        if version > SQLiteDeviceStore.schemaVersion {
            throw StoreError(path: path, message: "has schema version \(version), newer than this build's \(SQLiteDeviceStore.schemaVersion); use a newer outbox, or move it aside with `outbox state reset --profile \(profile.rawValue)`")
        }
        for v in version..<SQLiteDeviceStore.schemaVersion {
            try exec("BEGIN IMMEDIATE")
            do {
                for sql in SQLiteDeviceStore.migrations[Int(v)] { try exec(sql) }
                try exec("PRAGMA application_id=\(SQLiteDeviceStore.applicationID)")
                try exec("PRAGMA user_version=\(v + 1)")
                try exec("COMMIT")
            } catch {
                try? exec("ROLLBACK")
                throw error
            }
        }
    }

    /// For reading only: the same refusals as `migrate`, without changing anything.
    private func checkReadable() throws(StoreError) {
        let version = Int32(try scalarInt("PRAGMA user_version"))
        let app = Int32(truncatingIfNeeded: try scalarInt("PRAGMA application_id"))
        if app != SQLiteDeviceStore.applicationID {
            throw StoreError(path: path, message: "is not an Outbox device (application_id \(app))")
        }
        if version != SQLiteDeviceStore.schemaVersion {
            throw StoreError(path: path, message: "has schema version \(version); this build reads \(SQLiteDeviceStore.schemaVersion)")
        }
    }

    /// `migrations[v]` takes a database from version v to v + 1.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE requests (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at_ms INTEGER NOT NULL,
                idempotency_key TEXT,
                value_micros INTEGER,
                currency TEXT NOT NULL DEFAULT '',
                attributes TEXT NOT NULL DEFAULT '',
                attempts INTEGER NOT NULL DEFAULT 0,
                waiting_for_consent INTEGER NOT NULL DEFAULT 0
            )
            """,
            "CREATE TABLE device (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        ]
    ]

    private func loadDevice() throws(StoreError) {
        let s = try statement("SELECT key, value FROM device")
        defer { sqlite3_reset(s) }
        while sqlite3_step(s) == SQLITE_ROW {
            let key = text(s, 0), value = text(s, 1)
            switch key {
            case "consent": cachedConsent = [Consent.undecided, .granted, .denied].first { $0.word == value } ?? .undecided
            case "install_created": cachedInstall = value == "1"
            case "opens": epoch = UInt64(value) ?? 0
            default: break
            }
        }
    }

    // MARK: DeviceStore

    public var consent: Consent {
        get { cachedConsent }
        set {
            cachedConsent = newValue
            setDevice("consent", newValue.word)
        }
    }

    public var installCreated: Bool {
        get { cachedInstall }
        set {
            cachedInstall = newValue
            setDevice("install_created", newValue ? "1" : "0")
        }
    }

    private func setDevice(_ key: String, _ value: String) {
        guard !readOnly else { return }
        run("INSERT OR REPLACE INTO device (key, value) VALUES (?, ?)") { s in
            bind(s, 1, key)
            bind(s, 2, value)
        }
    }

    public func save(_ r: SavedRequest) {
        preloaded = nil
        run("""
            INSERT OR REPLACE INTO requests (id, kind, name, created_at_ms, idempotency_key, value_micros, currency,
                attributes, attempts, waiting_for_consent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ) { s in
            sqlite3_bind_int64(s, 1, Int64(r.id))
            bind(s, 2, r.kind.word)
            bind(s, 3, r.name)
            sqlite3_bind_int64(s, 4, r.createdAt)
            if r.idempotencyKey != 0 { bind(s, 5, SQLiteDeviceStore.hex(r.idempotencyKey)) } else { sqlite3_bind_null(s, 5) }
            if let v = r.value { sqlite3_bind_int64(s, 6, v.micros) } else { sqlite3_bind_null(s, 6) }
            bind(s, 7, r.currency)
            bind(s, 8, SQLiteDeviceStore.encode(r.attributes))
            sqlite3_bind_int64(s, 9, Int64(r.attempts))
            sqlite3_bind_int64(s, 10, r.waitingForConsent ? 1 : 0)
        }
    }

    public func attempted(id: Int32, attempts: Int32) {
        preloaded = nil
        run("UPDATE requests SET attempts = ?, waiting_for_consent = 0 WHERE id = ?") { s in
            sqlite3_bind_int64(s, 1, Int64(attempts))
            sqlite3_bind_int64(s, 2, Int64(id))
        }
    }

    public func remove(id: Int32) {
        preloaded = nil
        run("DELETE FROM requests WHERE id = ?") { s in sqlite3_bind_int64(s, 1, Int64(id)) }
    }

    public func loadAll() -> [SavedRequest] {
        if let rows = preloaded {
            preloaded = nil
            return rows
        }
        let (rows, problem) = readRows()
        if let problem { failure = "\(path): cannot read saved requests (\(problem))" }
        return rows
    }

    /// Every saved request, oldest first, and what stopped the read early, if anything.
    private func readRows() -> ([SavedRequest], String?) {
        guard let s = try? statement("""
            SELECT id, kind, name, created_at_ms, idempotency_key, value_micros, currency, attributes, attempts,
                waiting_for_consent FROM requests ORDER BY id
            """)
        else { return ([], "cannot prepare the query") }
        defer { sqlite3_reset(s) }
        var out: [SavedRequest] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { return (out, message(rc)) }
            // Read straight from SQLite's bytes: at 10^5 rows this is the start-up path.
            guard let kind = SQLiteDeviceStore.kind(sqlite3_column_text(s, 1)) else { continue }
            let key = SQLiteDeviceStore.hexValue(sqlite3_column_text(s, 4))
            let value = sqlite3_column_type(s, 5) == SQLITE_NULL ? nil : Amount(micros: sqlite3_column_int64(s, 5))
            out.append(SavedRequest(
                id: Int32(sqlite3_column_int64(s, 0)), kind: kind, name: text(s, 2), createdAt: sqlite3_column_int64(s, 3),
                idempotencyKey: key, value: value, currency: text(s, 6), attributes: SQLiteDeviceStore.decode(text(s, 7)),
                attempts: Int32(sqlite3_column_int64(s, 8)), waitingForConsent: sqlite3_column_int64(s, 9) != 0))
        }
        return (out, nil)
    }

    /// Moves a profile's database (and its WAL files) aside, so the device starts
    /// empty; returns where it went, or nil when there was nothing. Refuses while
    /// another Outbox uses the device.
    public static func reset(directory: String, profile: Profile, stamp: String) throws(StoreError) -> String? {
        let db = databasePath(directory: directory, profile: profile)
        var st = stat()
        guard stat(db, &st) == 0 else { return nil }
        // Take the lock so no one is writing while the files move.
        let holder = try SQLiteDeviceStore(lockOnly: directory, profile: profile)
        defer { holder.close() }
        let aside = db + ".reset-" + stamp
        for suffix in ["", "-wal", "-shm"] where stat(db + suffix, &st) == 0 {
            if rename(db + suffix, aside + suffix) != 0 {
                throw StoreError(path: db + suffix, message: "cannot move it aside (\(String(cString: strerror(errno))))")
            }
        }
        return aside
    }

    private init(lockOnly directory: String, profile: Profile) throws(StoreError) {
        self.directory = directory
        self.profile = profile
        self.readOnly = true
        path = SQLiteDeviceStore.databasePath(directory: directory, profile: profile)
        try lock()
    }

    // MARK: SQLite plumbing

    private func run(_ sql: String, _ bindings: (OpaquePointer) -> Void) {
        guard failure == nil else { return }
        guard !readOnly else {
            failure = "\(path): opened read-only; nothing can be saved"
            return
        }
        do {
            let s = try statement(sql)
            bindings(s)
            let rc = sqlite3_step(s)
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            if rc != SQLITE_DONE { failure = "\(path): a write failed (\(message(rc))); the device may be missing the last change" }
        } catch {
            failure = error.description
        }
    }

    private func statement(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let s = statements[sql] { return s }
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &s, nil)
        guard rc == SQLITE_OK, let s else { throw error("cannot prepare a statement", rc) }
        statements[sql] = s
        return s
    }

    private func exec(_ sql: String) throws(StoreError) {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error("cannot run `\(sql.prefix(40))`", rc) }
    }

    private func scalarText(_ sql: String) throws(StoreError) -> String? {
        var s: OpaquePointer?
        var rc = sqlite3_prepare_v2(db, sql, -1, &s, nil)
        guard rc == SQLITE_OK else { throw error("cannot read the database", rc) }
        defer { sqlite3_finalize(s) }
        rc = sqlite3_step(s)
        if rc == SQLITE_ROW { return text(s!, 0) }
        if rc == SQLITE_DONE { return nil }
        throw error("cannot read the database", rc)
    }

    private func scalarInt(_ sql: String) throws(StoreError) -> Int64 {
        Int64(try scalarText(sql) ?? "0") ?? 0
    }

    private func message(_ rc: Int32) -> String {
        let m = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return m + " (code \(rc))"
    }

    private func error(_ what: String, _ rc: Int32) -> StoreError {
        let primary = rc & 0xFF
        if primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT {
            return StoreError(path: path, message: "the database is damaged or not a database (\(message(rc))); nothing was changed. Move it aside with `outbox state reset --profile \(profile.rawValue)`")
        }
        if primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM {
            return StoreError(path: path, message: "\(what): \(message(rc)); is the state directory writable?")
        }
        return StoreError(path: path, message: "\(what): \(message(rc))")
    }

    /// The kind named by a C string, without building a Swift string.
    static func kind(_ c: UnsafePointer<UInt8>?) -> RequestKind? {
        guard let c else { return nil }
        let bytes = UnsafeBufferPointer(start: c, count: strlen(UnsafeRawPointer(c).assumingMemoryBound(to: CChar.self)))
        return RequestKind.allCases.first { $0.word.utf8.elementsEqual(bytes) }
    }

    /// A 16-digit hex key from a C string (0 when absent or malformed).
    static func hexValue(_ c: UnsafePointer<UInt8>?) -> UInt64 {
        guard let c else { return 0 }
        var v: UInt64 = 0
        var i = 0
        while c[i] != 0 {
            let d = c[i]
            let n: UInt64
            switch d {
            case 48...57: n = UInt64(d - 48)
            case 97...102: n = UInt64(d - 87)
            case 65...70: n = UInt64(d - 55)
            default: return 0
            }
            v = v << 4 | n
            i += 1
            if i > 16 { return 0 }
        }
        return v
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// Attributes as text: `key\u{1F}value` pairs joined by `\u{1E}`.
    static func encode(_ attrs: [Attribute]) -> String {
        attrs.map { $0.key + "\u{1F}" + $0.value }.joined(separator: "\u{1E}")
    }

    static func decode(_ text: String) -> [Attribute] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "\u{1E}", omittingEmptySubsequences: false).map { pair in
            let kv = pair.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
            return Attribute(key: String(kv[0]), value: kv.count > 1 ? String(kv[1]) : "")
        }
    }
}

private func bind(_ s: OpaquePointer, _ i: Int32, _ v: String) {
    sqlite3_bind_text(s, i, v, -1, outbox_sqlite_transient())
}

private func text(_ s: OpaquePointer, _ i: Int32) -> String {
    guard let c = sqlite3_column_text(s, i) else { return "" }
    return String(cString: c)
}

/// `PRAGMA quick_check` on its own read-only connection and thread, started at
/// once; `result()` waits for its verdict ("ok", or what is wrong).
final class QuickCheck: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written by the checking thread before `done` is signalled, read after the wait.
    private var verdict: String?

    init(path: String) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            verdict = QuickCheck.run(path)
            done.signal()
        }
    }

    func result() -> String? {
        done.wait()
        return verdict
    }

    private static func run(_ path: String) -> String? {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK else { return "cannot open it to check (\(String(cString: sqlite3_errstr(rc))))" }
        sqlite3_busy_timeout(db, 2000)
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, nil) == SQLITE_OK else {
            return String(cString: sqlite3_errmsg(db))
        }
        defer { sqlite3_finalize(s) }
        var lines: [String] = []
        while true {
            let step = sqlite3_step(s)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { return String(cString: sqlite3_errmsg(db)) }
            if let t = sqlite3_column_text(s, 0) { lines.append(String(cString: t)) }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }
}
