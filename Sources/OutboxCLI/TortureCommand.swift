import ArgumentParser
import OutboxCore
import OutboxFoundation
import OutboxStore

/// `outbox _store-torture --state-dir DIR [--seed N] [--seconds S]`: a hidden
/// developer command for the crash test (docs/storage.md). It drives a busy
/// LinkTrail device on the SQLite store and reports every write on stdout, one
/// unbuffered line each, only after the store returned (so after the commit):
/// `L id key` for what it found at start, `S id key` saved, `R id` removed.
struct TortureCommand: OutboxSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "_store-torture", usage: CLI.parserUsage(synopsis), shouldDisplay: false)
    }
    static var synopsis: String { "outbox _store-torture --state-dir DIR [--seed N] [--seconds S]" }

    @Option var stateDir: String?
    @Option var seed: String?
    @Option var seconds: String?

    /// Forwards to the SQLite store, then reports.
    final class ReportingStore: DeviceStore {
        let inner: SQLiteDeviceStore
        init(_ inner: SQLiteDeviceStore) { self.inner = inner }

        func report(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }

        func save(_ r: SavedRequest) {
            inner.save(r)
            report("S \(r.id) \(Simulation.hexKey(r.idempotencyKey))")
        }

        func attempted(id: Int32, attempts: Int32) { inner.attempted(id: id, attempts: attempts) }

        func remove(id: Int32) {
            inner.remove(id: id)
            report("R \(id)")
        }

        func loadAll() -> [SavedRequest] { inner.loadAll() }
        var consent: Consent {
            get { inner.consent }
            set { inner.consent = newValue }
        }
        var installCreated: Bool {
            get { inner.installCreated }
            set { inner.installCreated = newValue }
        }
        var failure: String? { inner.failure }
        var epoch: UInt64 { inner.epoch }
    }

    func execute(console: Console) -> Int32 {
        let dir = stateDir
        let seed = self.seed.flatMap { UInt64($0) } ?? 1
        let seconds = self.seconds.flatMap { Double($0) } ?? 10
        guard let dir else {
            console.error("usage: outbox _store-torture --state-dir DIR [--seed N] [--seconds S]")
            return 2
        }
        let disk: SQLiteDeviceStore
        do {
            disk = try SQLiteDeviceStore(directory: dir, profile: Builtins.linktrail)
        } catch {
            console.error("outbox: " + error.description)
            return 2
        }
        let store = ReportingStore(disk)
        for r in disk.loadAll() { store.report("L \(r.id) \(Simulation.hexKey(r.idempotencyKey))") }
        var settings = Settings(profile: Builtins.linktrail)
        settings.apply(.requireConsent(false))
        settings.seed = seed
        var sim = Simulation(profile: Builtins.linktrail, settings: settings, store: store)
        sim.keepsJournal = false
        sim.apply(.appLaunched)
        var rng = SplitMix64(seed: seed)
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let roll = rng.next() % 100
            switch roll {
            case 0..<45:
                sim.apply(.eventTracked(TrackedEvent(name: "e\(rng.next() % 7)", value: Amount(micros: 1_000_000))))
            case 45..<55: sim.apply(sim.online ? .networkWentOffline : .networkWentOnline)
            case 55..<65:
                let answers: [Answer] = [.ok, .status(503), .status(400), .timeout, .lost]
                sim.apply(.serverPlanned(answers[Int(rng.next() % 5)], .times(Int(rng.next() % 4) + 1)))
            case 65..<70:
                sim.apply(.appQuit)
                sim.apply(.appLaunched)
            default:
                sim.advance(to: sim.now + Millis(rng.next() % 3000))
            }
            sim.settle()
            if let why = store.failure {
                console.error("outbox: " + why)
                return 1
            }
        }
        disk.close()
        return 0
    }
}
