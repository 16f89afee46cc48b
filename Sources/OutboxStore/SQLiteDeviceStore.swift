import CSQLite
import Dispatch
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
/// Only one process may write a device: a lock file beside the database carries
/// an `fcntl` write lock for as long as the store is open (`DeviceLock`).
///
/// Files: the database, its `-wal`, `-shm` and `-journal` companions and the lock
/// are never opened through a symbolic link, and a database is refused, untouched,
/// when anything in it is damaged or out of range (`StoreLimits`); the damage is
/// named, row and column (docs/storage.md).
public final class SQLiteDeviceStore: DeviceStore {
    /// The schema this build writes; older ones are migrated, newer ones refused.
    public static let schemaVersion: Int32 = 1
    /// `PRAGMA application_id`: "OBX1", so a foreign SQLite file is recognised.
    public static let applicationID: Int32 = 0x4F42_5831
    /// The files SQLite keeps beside a database, by suffix.
    static let companions = ["-wal", "-shm", "-journal"]

    public let path: String
    public let directory: String
    public let profile: Profile
    /// Whether this store only reads (`outbox state show`): no lock, no writes.
    public let readOnly: Bool
    private var db: OpaquePointer?
    private var lock: DeviceLock?
    private var statements: [String: OpaquePointer] = [:]
    private var cachedConsent: Consent = .undecided
    private var cachedInstall = false
    public private(set) var epoch: UInt64 = 0
    public private(set) var failure: String?
    /// The saved requests, read at open while `quick_check` ran beside the read;
    /// handed out by the first `loadAll` unless a write came first.
    private var preloaded: [SavedRequest]?
    /// What is damaged in the database, first ones in detail (`ColumnReader.kept`).
    /// Only a read-only store opens with damage (and `loadAll` leaves the damaged
    /// rows out); a store for writing refuses to open instead.
    public private(set) var damage: [StoreDamage] = []
    /// How many damages were found in all.
    public private(set) var damageCount = 0

    /// The database file of a profile in a state directory.
    public static func databasePath(directory: String, profile: Profile) -> String {
        directory + "/" + profile.rawValue + ".sqlite"
    }

    /// The lock file of a profile in a state directory.
    public static func lockPath(directory: String, profile: Profile) -> String {
        directory + "/" + profile.rawValue + ".lock"
    }

    /// Whether anything is at a profile's database path: a file, or a link or
    /// something else that `outbox state show` must name rather than pass over.
    public static func hasDevice(directory: String, profile: Profile) -> Bool {
        StorePlatform.entry(databasePath(directory: directory, profile: profile)) != .missing
    }

    /// The default state directory: `$XDG_STATE_HOME/outbox`, else `~/.local/state/outbox`.
    /// A relative XDG_STATE_HOME is ignored, as the XDG base directory rules say
    /// (and as the profiles' XDG_CONFIG_HOME is): it would move with the working folder.
    /// So is a relative or empty HOME: the home folder then comes from the user
    /// database (`getpwuid`), and only without one is it the working folder.
    public static func defaultDirectory() -> String {
        if let x = StorePlatform.environment("XDG_STATE_HOME"), x.hasPrefix("/") { return x + "/outbox" }
        var home = StorePlatform.environment("HOME") ?? ""
        if !home.hasPrefix("/") { home = StorePlatform.passwordHome() ?? "." }
        return home + "/.local/state/outbox"
    }

    /// Opens (creating when missing) the device of `profile` in `directory`.
    /// `readOnly` opens an existing database to look at it, without the lock; it
    /// opens a database with damaged rows (listed in `damage`), where an open for
    /// writing refuses.
    public init(directory: String, profile: Profile, readOnly: Bool = false) throws(StoreError) {
        self.directory = directory
        self.profile = profile
        self.readOnly = readOnly
        path = SQLiteDeviceStore.databasePath(directory: directory, profile: profile)
        do throws(StoreError) {
            if !readOnly {
                try SQLiteDeviceStore.makeDirectory(directory)
                try SQLiteDeviceStore.checkWritable(directory)
                lock = try SQLiteDeviceStore.takeLock(directory: directory, profile: profile)
            } else {
                lock = SQLiteDeviceStore.lockIfFree(directory: directory, profile: profile)
            }
            try checkFiles()
            try checkHeader()
            try open()
            if !readOnly {
                if damageCount > 0 { throw damagedError() }
                guard epoch < StoreLimits.opens.upperBound else {
                    throw StoreError(
                        path: path,
                        message:
                            "device row 'opens': the device was opened \(epoch) times, the most it can be: its next open would repeat the idempotency keys of an earlier one; nothing was changed. \(moveAside)"
                    )
                }
                try prepareForWriting()
                setDevice("opens", String(epoch + 1))
                if let failure { throw StoreError(path: path, message: "cannot write the device (\(failure))") }
            }
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
        lock?.release()
        lock = nil
    }

    // MARK: Opening

    static func makeDirectory(_ dir: String) throws(StoreError) {
        if let isDir = StorePlatform.isDirectory(dir) {
            guard isDir else { throw StoreError(path: dir, message: "is not a directory, expected a state directory") }
            return
        }
        var built = dir.hasPrefix("/") ? "" : "."
        for part in dir.split(separator: "/") {
            built += "/" + part
            if StorePlatform.isDirectory(built) == nil {
                let e = StorePlatform.makeDirectory(built)
                if e != 0 && e != StorePlatform.exists {
                    throw StoreError(
                        path: built, message: "cannot create the state directory (\(StorePlatform.describe(e)))")
                }
            }
        }
    }

    /// A device is written only in a directory this process may write: said before
    /// anything is created, with what is true (permission, read-only file system).
    static func checkWritable(_ dir: String) throws(StoreError) {
        let e = StorePlatform.canWriteDirectory(dir)
        guard e != 0 else { return }
        let why: String
        switch e {
        case StorePlatform.readOnlyFileSystem: why = "is on a read-only file system"
        case StorePlatform.denied, StorePlatform.notPermitted: why = "is not writable by this user (permission denied)"
        default: why = "cannot be written (\(StorePlatform.describe(e)))"
        }
        throw StoreError(
            path: dir,
            message:
                "the state directory \(why); Outbox creates a device's lock and database files there to run it. Nothing was changed; `outbox state show` can still read what it holds"
        )
    }

    /// For a read-only look: the device's lock when its file exists and nobody
    /// holds it, else nil (never creates the lock file, never waits). Held, it
    /// says no process writes the database while it is read, so the read can
    /// open it as immutable and leave no `-shm` or `-wal` behind.
    static func lockIfFree(directory: String, profile: Profile) -> DeviceLock? {
        let lockPath = lockPath(directory: directory, profile: profile)
        guard case .regular = StorePlatform.entry(lockPath), case .success(let lock) = DeviceLock.acquire(lockPath)
        else { return nil }
        return lock
    }

    static func takeLock(directory: String, profile: Profile) throws(StoreError) -> DeviceLock {
        let lockPath = lockPath(directory: directory, profile: profile)
        let db = databasePath(directory: directory, profile: profile)
        switch DeviceLock.acquire(lockPath) {
        case .success(let lock):
            return lock
        case .failure(.inUse(let pid?)) where pid == StorePlatform.pid:
            throw StoreError(
                path: db,
                message: "this device is already open in this process (pid \(pid)); only one may write it at a time")
        case .failure(.inUse(let pid?)):
            throw StoreError(
                path: db,
                message:
                    "another process (pid \(pid)) is using this device: it holds the lock on \(lockPath); only one Outbox may write a device at a time"
            )
        case .failure(.inUse(nil)):
            throw StoreError(
                path: db,
                message:
                    "another process is using this device: it holds the lock on \(lockPath) (the system does not say which process); only one Outbox may write a device at a time"
            )
        case .failure(.unusable(let why)):
            throw StoreError(path: lockPath, message: why)
        }
    }

    /// The database and its companions are regular files or absent: never a link
    /// (SQLite would read and write the link's target, wherever it is), and for
    /// writing never a file with a second name elsewhere.
    private func checkFiles() throws(StoreError) {
        for suffix in [""] + SQLiteDeviceStore.companions {
            let p = path + suffix
            switch StorePlatform.entry(p) {
            case .missing:
                if suffix.isEmpty && readOnly { throw StoreError(path: p, message: "there is no device database here") }
            case .regular(_, let links, _, _):
                if links > 1 && !readOnly {
                    throw StoreError(
                        path: p,
                        message:
                            "has \(links) names (hard links); Outbox writes only a database file that is its own, so nothing was changed. \(moveAside)"
                    )
                }
            case .symlink:
                throw StoreError(
                    path: p,
                    message:
                        "is a symbolic link; Outbox never reads or writes its database through a link, so nothing was opened. Put the file itself there, or move the link aside with \(hint("reset")) (its target is not touched)"
                )
            case let other:
                throw StoreError(
                    path: p, message: "is \(other.word), expected a regular file; nothing was opened. \(moveAside)")
            }
        }
    }

    /// A file that is there but is not SQLite is refused before SQLite sees it.
    private func checkHeader() throws(StoreError) {
        let (fd, e) = StorePlatform.openForReading(path)
        guard fd >= 0 else {
            if e == StorePlatform.notFound { return }
            throw StoreError(path: path, message: "cannot read the database (\(StorePlatform.describe(e)))")
        }
        defer { StorePlatform.close(fd) }
        guard case .regular(let size, _, _, _) = StorePlatform.entry(fd: fd) else {
            throw StoreError(path: path, message: "is not a regular file; nothing was opened")
        }
        guard size > 0 else { return }
        let magic = Array("SQLite format 3".utf8) + [0]
        guard StorePlatform.read(fd, 16) == magic else {
            throw StoreError(
                path: path,
                message: "is not an SQLite database (a foreign or damaged file); nothing was changed. \(moveAside)")
        }
    }

    /// How a read-only store opens the file: by name, or, when no write-ahead log
    /// is waiting and either the directory cannot be written or the lock says no
    /// one writes the device now, as an immutable file (SQLite would otherwise
    /// create `-shm` beside it, and could not, or would leave it behind).
    private func connectionTarget() -> (name: String, flags: Int32) {
        let base = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        if !readOnly { return (path, base | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) }
        var logWaiting = false
        if case .regular(let size, _, _, _) = StorePlatform.entry(path + "-wal") { logWaiting = size > 0 }
        if !logWaiting && (lock != nil || StorePlatform.canWriteDirectory(directory) != 0) {
            return (SQLiteDeviceStore.uri(path, immutable: true), base | SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
        }
        return (path, base | SQLITE_OPEN_READONLY)
    }

    /// A `file:` URI for a path, every byte outside the unreserved set escaped.
    static func uri(_ path: String, immutable: Bool) -> String {
        var out = path.hasPrefix("/") ? "file://" : "file:"
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 0xF)])
            }
        }
        return out + (immutable ? "?immutable=1" : "")
    }

    private func open() throws(StoreError) {
        let target = connectionTarget()
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(target.name, &handle, target.flags, nil)
        db = handle
        guard rc == SQLITE_OK else {
            throw error("cannot open the database", handle.map { sqlite3_extended_errcode($0) } ?? rc)
        }
        sqlite3_extended_result_codes(db, 1)
        if !readOnly && sqlite3_db_readonly(db, "main") == 1 {
            throw StoreError(
                path: path,
                message:
                    "the database file is read-only (no permission to write it); nothing was changed. Outbox writes a device it runs: make the file writable (chmod u+w) or use another --state-dir; \(hint("show")) can still read it"
            )
        }
        sqlite3_busy_timeout(db, 2000)
        // Nothing of a device goes to temporary files outside the state directory.
        try exec("PRAGMA temp_store=MEMORY")
        // The check reads the whole file, and so does loading the saved requests,
        // which a launch needs next: on a large device the two run side by side,
        // on two connections, and nothing is written until the check said ok.
        let check = QuickCheck(
            name: readOnly ? target.name : path,
            flags: readOnly ? target.flags : SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW)
        var problem: StoreError?
        do {
            try readContents()
        } catch {
            problem = error
        }
        switch check.result() {
        case .ok:
            break
        case .damaged(let what):
            preloaded = nil
            throw StoreError(
                path: path, message: "the database is damaged (quick_check: \(what)); nothing was changed. \(moveAside)"
            )
        case .couldNotRun(let why):
            preloaded = nil
            throw StoreError(path: path, message: "cannot check the database (\(why)); nothing was changed")
        }
        if let problem { throw problem }
    }

    /// Everything a device holds, read and checked without writing: the schema's
    /// identity, its tables and columns, the saved requests, the device facts.
    private func readContents() throws(StoreError) {
        let version = try scalarInt("PRAGMA user_version")
        let app = Int32(truncatingIfNeeded: try scalarInt("PRAGMA application_id"))
        let tables = try scalarInt("SELECT count(*) FROM sqlite_master")
        let ours = SQLiteDeviceStore.applicationID, current = Int64(SQLiteDeviceStore.schemaVersion)
        if readOnly && app != ours {
            throw StoreError(path: path, message: "is not an Outbox device (application_id \(app))")
        }
        if app != ours && (tables > 0 || version != 0) {
            throw StoreError(
                path: path,
                message:
                    "is an SQLite database of some other program (application_id \(app)), not an Outbox device; nothing was changed"
            )
        }
        if version > current {
            throw StoreError(
                path: path,
                message:
                    "has schema version \(version), newer than this build's \(current); use a newer outbox, or \(moveAside.lowercasedFirst)"
            )
        }
        if version < 0 || (readOnly && version != current) {
            throw StoreError(path: path, message: "has schema version \(version); this build reads \(current)")
        }
        // An older schema has nothing this build reads: the migration brings it up.
        guard version == current else { return }
        var reader = ColumnReader(path: path)
        let requestsOK = checkTable("requests", SQLiteDeviceStore.requestColumns, &reader)
        let deviceOK = checkTable("device", ["key", "value"], &reader)
        if requestsOK {
            let (rows, error) = readRows(&reader)
            if let error { throw StoreError(path: path, message: "cannot read the saved requests (\(error))") }
            preloaded = rows
        }
        if deviceOK { try loadDevice(&reader) }
        damage = reader.damage
        damageCount = reader.damageCount
    }

    /// Whether a table is there with every column; what is missing is damage.
    private func checkTable(_ table: String, _ columns: [String], _ reader: inout ColumnReader) -> Bool {
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA table_info(\(table))", -1, &s, nil) == SQLITE_OK, let s else {
            reader.report("table `\(table)`", nil, "cannot be read (\(message(sqlite3_errcode(db))))")
            return false
        }
        defer { sqlite3_finalize(s) }
        var found: Set<String> = []
        while sqlite3_step(s) == SQLITE_ROW {
            if let c = sqlite3_column_text(s, 1) { found.insert(String(cString: c)) }
        }
        if found.isEmpty {
            reader.report("table `\(table)`", nil, "is missing")
            return false
        }
        let missing = columns.filter { !found.contains($0) }
        for c in missing { reader.report("table `\(table)`", nil, "has no column `\(c)`") }
        return missing.isEmpty
    }

    /// WAL mode, then the schema brought to this build's version. Only after
    /// everything was read and found sound.
    private func prepareForWriting() throws(StoreError) {
        let mode = try scalarText("PRAGMA journal_mode=WAL")
        guard mode == "wal" else {
            throw StoreError(path: path, message: "cannot switch to WAL mode (got \(mode ?? "nothing"))")
        }
        // NORMAL in WAL mode: a commit is in the WAL file before it returns, so a
        // killed process loses nothing; a power cut may lose the last commits but
        // never corrupts the database (docs/storage.md).
        try exec("PRAGMA synchronous=NORMAL")
        try migrate()
    }

    /// Brings the schema to this build's version (`readContents` refused a newer one).
    private func migrate() throws(StoreError) {
        let version = Int32(clamping: try scalarInt("PRAGMA user_version"))
        guard version >= 0 else { return }
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

    /// The device facts, each checked: a value Outbox would not have written is damage.
    private func loadDevice(_ reader: inout ColumnReader) throws(StoreError) {
        let s = try statement("SELECT key, value FROM device")
        defer { sqlite3_reset(s) }
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error("cannot read the device table", rc) }
            guard let key = reader.text(s, 0, "table `device`", "key") else { continue }
            let place = "device row " + ColumnReader.quoted(Array(key.utf8))
            guard let value = reader.text(s, 1, place, "value") else { continue }
            let shown = ColumnReader.quoted(Array(value.utf8))
            switch key {
            case "consent":
                if let c = [Consent.undecided, .granted, .denied].first(where: { $0.word == value }) {
                    cachedConsent = c
                } else {
                    reader.report(place, "value", "is \(shown), expected undecided, granted or denied")
                }
            case "install_created":
                if value == "0" || value == "1" {
                    cachedInstall = value == "1"
                } else {
                    reader.report(place, "value", "is \(shown), expected 0 or 1")
                }
            case "opens":
                let range = StoreLimits.opens
                if !value.isEmpty, value.utf8.count <= 20, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                    let n = UInt64(value), range.contains(n)
                {
                    epoch = n
                } else {
                    reader.report(
                        place, "value",
                        "is \(shown), expected a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
            default:
                reader.report(place, nil, "is not a fact Outbox keeps (expected consent, install_created or opens)")
            }
        }
    }

    /// The refusal for a database with damaged rows or tables: the first damage in
    /// full, how many more, and how to see them all or move the file aside.
    private func damagedError() -> StoreError {
        guard let first = damage.first else { return StoreError(path: path, message: "is damaged") }
        let more = damageCount - 1
        let rest = more == 0 ? "" : " (and \(more) more: \(hint("show")) lists them)"
        return StoreError(path: path, message: "is damaged: \(first.detail)\(rest); nothing was changed. \(moveAside)")
    }

    /// `outbox state VERB --profile P`, with `--state-dir` when it is not the default.
    func hint(_ verb: String) -> String {
        SQLiteDeviceStore.hint(verb, directory: directory, profile: profile)
    }

    /// The `outbox state` command for a device, quoted for a message.
    public static func hint(_ verb: String, directory: String, profile: Profile) -> String {
        var command = "outbox state \(verb) --profile \(profile.rawValue)"
        if directory != defaultDirectory() { command += " --state-dir " + shellQuoted(directory) }
        return "`" + command + "`"
    }

    static func shellQuoted(_ s: String) -> String {
        let plain =
            !s.isEmpty
            && s.utf8.allSatisfy { b in
                (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || "/._-+=:@%,".utf8.contains(b)
            }
        return plain ? s : "'" + s.replacingAll("'", "'\\''") + "'"
    }

    private var moveAside: String {
        "Move it aside with \(hint("reset")) (the file is kept under a new name; nothing is deleted)"
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
        if let why = SQLiteDeviceStore.unstorable(r) {
            if failure == nil {
                failure = "\(path): cannot save request #\(r.id): \(why), beyond what the store keeps (docs/storage.md)"
            }
            return
        }
        run(
            """
            INSERT OR REPLACE INTO requests (id, kind, name, created_at_ms, idempotency_key, value_micros, currency,
                attributes, attempts, waiting_for_consent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ) { s in
            sqlite3_bind_int64(s, 1, Int64(r.id))
            bind(s, 2, profile.word(r.kind))
            bind(s, 3, r.name)
            sqlite3_bind_int64(s, 4, r.createdAt)
            if r.idempotencyKey != 0 {
                bind(s, 5, SQLiteDeviceStore.hex(r.idempotencyKey))
            } else {
                sqlite3_bind_null(s, 5)
            }
            if let v = r.value { sqlite3_bind_int64(s, 6, v.micros) } else { sqlite3_bind_null(s, 6) }
            bind(s, 7, r.currency)
            bind(s, 8, SQLiteDeviceStore.encode(r.attributes))
            sqlite3_bind_int64(s, 9, Int64(r.attempts))
            sqlite3_bind_int64(s, 10, r.waitingForConsent ? 1 : 0)
        }
    }

    public func attempted(id: Int32, attempts: Int32) {
        preloaded = nil
        guard StoreLimits.attempts.contains(Int64(attempts)) else {
            if failure == nil {
                failure =
                    "\(path): cannot save request #\(id): its attempts \(attempts) are outside \(StoreLimits.attempts), beyond what the store keeps (docs/storage.md)"
            }
            return
        }
        run("UPDATE requests SET attempts = ?, waiting_for_consent = 0 WHERE id = ?") { s in
            sqlite3_bind_int64(s, 1, Int64(attempts))
            sqlite3_bind_int64(s, 2, Int64(id))
        }
    }

    public func remove(id: Int32) {
        preloaded = nil
        run("DELETE FROM requests WHERE id = ?") { s in sqlite3_bind_int64(s, 1, Int64(id)) }
    }

    /// Every saved request. A read after a write checks every value again; damage
    /// found then (another program changed the file) stops the model with the
    /// first of it in `failure`.
    public func loadAll() -> [SavedRequest] {
        if let rows = preloaded {
            preloaded = nil
            return rows
        }
        guard db != nil else { return [] }
        var reader = ColumnReader(path: path)
        let (rows, problem) = readRows(&reader)
        if failure == nil {
            if let problem {
                failure = "\(path): cannot read saved requests (\(problem))"
            } else if let first = reader.damage.first {
                let more = reader.damageCount - 1
                failure =
                    first.description + (more > 0 ? " (and \(more) more)" : "") + "; \(hint("show")) lists the damage"
            }
        }
        return rows
    }

    /// Every sound saved request, oldest first; damaged rows are reported to
    /// `reader`, and the second value says what stopped the read early, if anything.
    private func readRows(_ reader: inout ColumnReader) -> ([SavedRequest], String?) {
        let s: OpaquePointer
        do {
            s = try statement(
                """
                SELECT id, kind, name, created_at_ms, idempotency_key, value_micros, currency, attributes, attempts,
                    waiting_for_consent FROM requests ORDER BY id
                """)
        } catch {
            return ([], error.message)
        }
        defer { sqlite3_reset(s) }
        var out: [SavedRequest] = []
        let vocabulary = profile.vocabulary
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { return (out, message(rc)) }
            if let r = SQLiteDeviceStore.request(s, &reader, vocabulary) { out.append(r) }
        }
        return (out, nil)
    }

    /// Moves a profile's database (and its WAL files) aside, so the device starts
    /// empty; returns where it went, or nil when there was nothing. Refuses while
    /// another Outbox uses the device.
    ///
    /// The new name is one no file has (`.reset-STAMP`, then `.reset-STAMP-2`, ...),
    /// for the database and each companion alike, and a file is given it with
    /// `link`, which fails rather than replace anything: a backup is never
    /// overwritten. Links are moved as links; their targets are not touched.
    public static func reset(directory: String, profile: Profile, stamp: String) throws(StoreError) -> String? {
        let db = databasePath(directory: directory, profile: profile)
        guard StorePlatform.entry(db) != .missing else { return nil }
        try checkWritable(directory)
        // Take the lock so no one is writing while the files move.
        let lock = try takeLock(directory: directory, profile: profile)
        defer { lock.release() }
        let present = [""] + companions.filter { StorePlatform.entry(db + $0) != .missing }
        for n in 1...10_000 {
            let aside = db + ".reset-" + stamp + (n == 1 ? "" : "-\(n)")
            // Free for every companion, present or not: a stray `-wal` beside a backup
            // would be taken as its log.
            guard ([""] + companions).allSatisfy({ StorePlatform.entry(aside + $0) == .missing }) else { continue }
            if try move(present.map { db + $0 }, to: present.map { aside + $0 }) { return aside }
        }
        throw StoreError(
            path: db, message: "cannot find a free name to move it aside to (10000 resets with stamp \(stamp))")
    }

    /// Gives each file its new name without replacing anything; false (and nothing
    /// changed) when a name was taken meanwhile.
    private static func move(_ from: [String], to: [String]) throws(StoreError) -> Bool {
        var linked: [Int] = []
        var renamed: [Int] = []
        func undo() {
            for i in linked { _ = StorePlatform.unlink(to[i]) }
            for i in renamed.reversed() { _ = StorePlatform.rename(to[i], from[i]) }
        }
        for i in from.indices {
            let e = StorePlatform.link(from[i], to[i])
            if e == 0 {
                linked.append(i)
                continue
            }
            if e == StorePlatform.exists {
                undo()
                return false
            }
            // No hard links here (some file systems): rename, after checking the name is
            // free; the device lock keeps other Outboxes from racing for it.
            guard StorePlatform.noHardLinks(e), StorePlatform.entry(to[i]) == .missing else {
                undo()
                throw StoreError(
                    path: from[i],
                    message: "cannot move it aside to \(to[i]) (\(StorePlatform.describe(e))); nothing was changed")
            }
            let r = StorePlatform.rename(from[i], to[i])
            guard r == 0 else {
                undo()
                throw StoreError(
                    path: from[i],
                    message: "cannot move it aside to \(to[i]) (\(StorePlatform.describe(r))); nothing was changed")
            }
            renamed.append(i)
        }
        // Every file has its new name: only now does the old one go.
        for i in linked {
            let e = StorePlatform.unlink(from[i])
            if e != 0 && e != StorePlatform.notFound {
                throw StoreError(
                    path: from[i],
                    message:
                        "was copied aside to \(to[i]) but its old name cannot be removed (\(StorePlatform.describe(e))); both names hold the same file"
                )
            }
        }
        return true
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
            if rc != SQLITE_DONE {
                failure = "\(path): a write failed (\(message(rc))); the device may be missing the last change"
            }
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

    /// SQLite's message, with the system's reason when a file operation failed.
    private func message(_ rc: Int32) -> String {
        var m = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        let primary = rc & 0xFF
        if let db,
            primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_READONLY
                || primary == SQLITE_PERM
        {
            let e = sqlite3_system_errno(db)
            if e != 0 { m += ": " + StorePlatform.describe(e) }
        }
        return m + " (code \(rc))"
    }

    private func error(_ what: String, _ rc: Int32) -> StoreError {
        let primary = rc & 0xFF
        if rc == SQLITE_CANTOPEN | (6 << 8) {  // SQLITE_CANTOPEN_SYMLINK
            return StoreError(
                path: path,
                message:
                    "is a symbolic link; Outbox never reads or writes its database through a link, so nothing was opened"
            )
        }
        if primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT {
            return StoreError(
                path: path,
                message: "the database is damaged or not a database (\(message(rc))); nothing was changed. \(moveAside)"
            )
        }
        return StoreError(path: path, message: "\(what): \(message(rc))")
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

/// Binds text with its exact length: a string with a NUL in it is stored whole.
private func bind(_ s: OpaquePointer, _ i: Int32, _ v: String) {
    var v = v
    v.withUTF8 { b in
        guard let p = b.baseAddress, b.count > 0 else {
            _ = sqlite3_bind_text(s, i, "", 0, outbox_sqlite_transient())
            return
        }
        _ = p.withMemoryRebound(to: CChar.self, capacity: b.count) {
            sqlite3_bind_text64(s, i, $0, sqlite3_uint64(b.count), outbox_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }
}

private func text(_ s: OpaquePointer, _ i: Int32) -> String {
    guard let c = sqlite3_column_text(s, i) else { return "" }
    return String(cString: c)
}

extension String {
    fileprivate var lowercasedFirst: String {
        guard let f = first else { return self }
        return f.lowercased() + dropFirst()
    }

    fileprivate func replacingAll(_ a: Character, _ b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }
}

/// `PRAGMA quick_check` on its own read-only connection and thread, started at
/// once; `result()` waits for its verdict.
final class QuickCheck: @unchecked Sendable {
    enum Verdict: Equatable {
        case ok
        /// What the check found wrong.
        case damaged(String)
        /// The check itself could not run (the file could not be opened or read):
        /// not a finding about the database.
        case couldNotRun(String)
    }

    private let done = DispatchSemaphore(value: 0)
    // Written by the checking thread before `done` is signalled, read after the wait.
    private var verdict: Verdict = .ok

    init(name: String, flags: Int32) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            verdict = QuickCheck.run(name, flags)
            done.signal()
        }
    }

    func result() -> Verdict {
        done.wait()
        return verdict
    }

    private static func run(_ name: String, _ flags: Int32) -> Verdict {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK else {
            return .couldNotRun("cannot open it to check: \(String(cString: sqlite3_errstr(rc)))")
        }
        sqlite3_busy_timeout(db, 2000)
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, nil) == SQLITE_OK else {
            return failed(db)
        }
        defer { sqlite3_finalize(s) }
        var lines: [String] = []
        while true {
            let step = sqlite3_step(s)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { return failed(db) }
            if let t = sqlite3_column_text(s, 0) { lines.append(String(cString: t)) }
        }
        if lines == ["ok"] { return .ok }
        return .damaged(lines.isEmpty ? "no answer" : lines.joined(separator: "; "))
    }

    /// A check stopped by an error: damage when SQLite says the file is corrupt,
    /// otherwise the check could not run (permissions, locks, I/O).
    private static func failed(_ db: OpaquePointer?) -> Verdict {
        let code = sqlite3_errcode(db) & 0xFF
        let m = String(cString: sqlite3_errmsg(db))
        return code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? .damaged(m) : .couldNotRun(m)
    }
}
