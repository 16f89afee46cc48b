// fuzz-modules: OutboxCLI
// fuzz-shared: Device.swift
// fuzz-make-seeds
// fuzz-max-len: 16384
// fuzz-options: -detect_leaks=0
//
// Fuzz target `store-file`: any bytes as a device's database file. They are put
// in a state directory as a profile's `.sqlite` (the profile picked by the
// bytes' sum) and then used as a user would (`useDevice`): `outbox state show`,
// the device opened (refused with a clear error, or loaded), the app launched on
// it in the live screen's model, a fixed round of actions, frames drawn. Seeds:
// devices the store itself wrote, with saved requests, in 512-byte pages so
// that mutations reach the records (made by the target: OUTBOX_FUZZ_MAKE_SEEDS).
//
// (-detect_leaks=0: as for store-rows, per-input leak checks scan the heap after
// most inputs; LeakSanitizer still checks the whole run when it ends.)
import CSQLite
import OutboxCore
import OutboxStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// After the launch: time, consent, a flush, a quit and a relaunch, time again.
let actions: [UInt8] = [9, 40, 2, 9, 40, 4, 9, 200, 0, 1, 9, 200, 8, 0, 8, 2]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    setUpFiles()
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let profile = Profile.allCases[bytes.reduce(0) { ($0 + Int($1)) & 3 }]
    let path = placeDevice(bytes, profile)
    actions.withUnsafeBufferPointer { a in
        var r = Reader(a)
        useDevice(profile, &r)
    }
    return 0
}

/// Devices with saved requests of every profile, as the store writes them,
/// moved to 512-byte pages and out of WAL mode (the store turns WAL back on).
func makeSeeds(_ dir: String) {
    for profile in Profile.allCases {
        let from = base + "/seed-" + profile.rawValue
        mkdir(from, 0o755)
        guard let store = try? SQLiteDeviceStore(directory: from, profile: profile) else { fatalError("cannot make a seed") }
        var sim = Simulation(profile: profile, store: store)
        sim.apply(.appLaunched)
        if profile == .linktrail { sim.apply(.consentGranted) }
        sim.apply(.serverPlanned(.status(503), .always))
        for (i, name) in ["purchase", "signup", "é ü", "open"].enumerated() {
            sim.apply(.eventTracked(TrackedEvent(name: name, value: i == 0 ? Amount(micros: 9_990_000) : nil,
                                                 currency: i == 0 ? "EUR" : nil,
                                                 attributes: i == 1 ? [Attribute(key: "plan", value: "gold")] : [])))
            sim.advance(to: sim.now + 1000)
        }
        sim.apply(.appQuit)
        store.close()
        let path = SQLiteDeviceStore.databasePath(directory: from, profile: profile)
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { fatalError("cannot reopen a seed") }
        sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM", nil, nil, nil)
        sqlite3_close(db)
        writeFile(dir + "/" + profile.rawValue + ".sqlite", readFile(path))
        removeTree(from)
    }
}
