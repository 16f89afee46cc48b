import OutboxCore
import OutboxServe
import OutboxUI

/// What `outbox fleet` reports (docs/fleet.md, "Reports"): a fleet's result
/// with what it was a run of, written as JSONL or a short table, and read back
/// from JSONL by `outbox fleet merge`, which sums shards into one report.
struct FleetReport: Equatable {
    /// The fleet file as given, and a fingerprint of its text and profiles:
    /// shards of different files are not merged.
    var file: String
    var fingerprint: String
    /// The profiles, as the summary names them (`ios`, `ios 70% android 30%`).
    var profiles: String
    var shard: FleetRun.Shard
    /// The shards summed into this report (`merge`); just `shard` for a run.
    var shards: [Int]
    var result: FleetResult
    var outages: [FleetFile.Outage]
    var capacity: Int?
    /// The profile of this run of `--profiles` (nil: the file's own): every JSONL object carries it.
    var label: String?

    init(fleet: FleetFile, text: String, shard: FleetRun.Shard, result: FleetResult, label: String? = nil) {
        file = fleet.file
        fingerprint = FleetReport.fingerprint(text, fleet)
        profiles =
            fleet.mix.count == 1
            ? fleet.mix[0].profile.rawValue
            : fleet.mix.map { "\($0.profile.rawValue) \(ServerRepeat.percentText($0.basisPoints))" }.joined(
                separator: " ")
        self.shard = shard
        shards = [shard.index]
        self.result = result
        outages = fleet.outages
        capacity = fleet.capacity
        self.label = label
    }

    init(
        file: String, fingerprint: String, profiles: String, shard: FleetRun.Shard, shards: [Int],
        result: FleetResult, outages: [FleetFile.Outage], capacity: Int?
    ) {
        self.file = file
        self.fingerprint = fingerprint
        self.profiles = profiles
        self.shard = shard
        self.shards = shards
        self.result = result
        self.outages = outages
        self.capacity = capacity
    }

    /// FNV-1a of the file's text and its profiles' names, in hex.
    static func fingerprint(_ text: String, _ fleet: FleetFile) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        for m in fleet.mix {
            for b in (m.profile.rawValue + "\u{0}").utf8 {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01b3
            }
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    var summary: FleetSummary { FleetSummary(result, outages: outages) }

    /// Whether this is every shard of its fleet.
    var isWhole: Bool { shards.count == shard.count }

    // MARK: JSONL

    /// One object per second, then the summary object (docs/fleet.md, "JSONL").
    var jsonl: String {
        var out = ""
        let queued = result.queued
        for s in 0..<result.seconds {
            var o = JSONObject()
            if let label { o.string("profile", label) }
            o.number("t", String(s))
            o.number("attempts", String(result.attempts[s]))
            o.number("new", String(result.new[s]))
            o.number("delivered", String(result.delivered[s]))
            o.number("over", String(result.over[s]))
            o.number("failed", String(result.failed[s]))
            o.number("dropped", String(result.dropped[s]))
            o.number("queued", String(queued[s]))
            out += o.text + "\n"
        }
        return out + summaryObject + "\n"
    }

    private static func ms(_ m: Millis?) -> String { m.map(VirtualTime.seconds) ?? "null" }

    var summaryObject: String {
        let sum = summary
        var s = JSONObject()
        s.number("devices", String(sum.devices))
        s.number("events", String(sum.events))
        s.number("attempts", String(sum.attempts))
        s.number("amplification", Decimals.fixed(sum.amplification, 4))
        s.number("delivered", String(sum.delivered))
        var d = JSONObject()
        for (reason, n) in sum.dropped { d.number(reason, String(n)) }
        s.number("dropped", d.text)
        s.number("duplicates", String(sum.duplicates))
        s.number("queuedAtEnd", String(sum.queuedAtEnd))
        s.number("over", String(sum.over))
        s.number("failed", String(sum.failed))
        var p = JSONObject()
        p.number("t", String(sum.peak.second))
        p.number("attempts", String(sum.peak.attempts))
        s.number("peak", p.text)
        s.number("recovery", FleetReport.ms(sum.recovery))
        s.number("drain", FleetReport.ms(sum.drain))
        s.number("delayP50", FleetReport.ms(sum.delayP50))
        s.number("delayP99", FleetReport.ms(sum.delayP99))

        var o = JSONObject()
        if let label { o.string("profile", label) }
        o.number("summary", s.text)
        o.string("fleet", file)
        o.string("fingerprint", fingerprint)
        o.string("profiles", profiles)
        o.string("shard", shard.text)
        o.number("shards", "[" + shards.map(String.init).joined(separator: ",") + "]")
        o.number("seconds", String(result.seconds))
        o.number("capacity", capacity.map(String.init) ?? "null")
        o.number(
            "outages",
            "["
                + outages.map { x in
                    var j = JSONObject()
                    j.number("from", VirtualTime.seconds(x.from))
                    j.number("to", FleetReport.ms(x.to))
                    j.string("what", x.what)
                    return j.text
                }.joined(separator: ",") + "]")
        o.number("live", String(result.live))
        o.number(
            "delays",
            "[" + result.delayCounts.map { "[\(VirtualTime.seconds($0.floor)),\($0.count)]" }.joined(separator: ",")
                + "]")
        return o.text
    }

    // MARK: Reading JSONL back

    static let rowKeys = ["attempts", "new", "delivered", "over", "failed", "dropped"]

    /// Reads a report `outbox fleet --format jsonl` wrote; the problem names the file and line.
    static func read(_ text: String, path: String) -> Result<FleetReport, Problem> {
        var rows: [[Int64]] = []
        var summary: JSONValue?
        var summaryLine = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (k, raw) in lines.enumerated() {
            let n = k + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard let v = JSONValue.parse(Array(line.utf8)), v.isObject else {
                return .failure(
                    Problem("\(path):\(n): not a JSON object, expected a line `outbox fleet --format jsonl` wrote"))
            }
            if let summary {
                if summary["profile"] != nil {
                    return .failure(
                        Problem(
                            "\(path):\(n): a second run after the summary (line \(summaryLine)): a report of `--profiles` is not merged, expected one run's or shard's report"
                        ))
                }
                return .failure(
                    Problem("\(path):\(n): a line after the summary (line \(summaryLine)), expected the summary last"))
            }
            if v["summary"] != nil {
                summary = v
                summaryLine = n
                continue
            }
            guard let t = whole(v["t"]) else {
                return .failure(
                    Problem("\(path):\(n): no `t`, expected a second's object {\"t\":S,...} or the summary"))
            }
            guard t == Int64(rows.count) else {
                return .failure(
                    Problem("\(path):\(n): second \(t) where \(rows.count) was expected (the seconds in order from 0)"))
            }
            var row: [Int64] = []
            for key in rowKeys {
                guard let x = whole(v[key]) else {
                    return .failure(Problem("\(path):\(n): `\(key)` missing or not a whole number ≥ 0"))
                }
                row.append(x)
            }
            rows.append(row)
        }
        guard let summary else {
            return .failure(
                Problem("\(path): no summary line, expected the object `{\"summary\":...}` a finished run writes last"))
        }
        func bad(_ key: String, _ expected: String) -> Result<FleetReport, Problem> {
            .failure(Problem("\(path):\(summaryLine): bad `\(key)` in the summary, expected \(expected)"))
        }
        guard let seconds = whole(summary["seconds"]), seconds == Int64(rows.count) else {
            return bad("seconds", "the number of second lines (\(rows.count))")
        }
        guard let shardWord = summary["shard"]?.string, case .success(let shard) = FleetRun.Shard.parse(shardWord)
        else {
            return bad("shard", "I/N")
        }
        guard let shardList = summary["shards"]?.array, !shardList.isEmpty else {
            return bad("shards", "a list of shard numbers")
        }
        var shards: [Int] = []
        for x in shardList {
            guard let i = whole(x), i < shard.count else { return bad("shards", "shard numbers below \(shard.count)") }
            shards.append(Int(i))
        }
        guard let file = summary["fleet"]?.string, let fingerprint = summary["fingerprint"]?.string,
            let profiles = summary["profiles"]?.string
        else { return bad("fleet", "the fleet's `fleet`, `fingerprint` and `profiles`") }
        var capacity: Int?
        if let c = summary["capacity"], c != .null {
            guard let x = whole(c) else { return bad("capacity", "a whole number or null") }
            capacity = Int(x)
        }
        var outages: [FleetFile.Outage] = []
        for x in summary["outages"]?.array ?? [] {
            guard let from = millis(x["from"]), let what = x["what"]?.string else {
                return bad("outages", "objects {\"from\":S,\"to\":S|null,\"what\":TEXT}")
            }
            let to = x["to"].flatMap { $0 == .null ? nil : millis($0) }
            outages.append(FleetFile.Outage(from: from, to: to, what: what))
        }
        var result = FleetResult(seconds: rows.count)
        for (s, r) in rows.enumerated() {
            result.attempts[s] = r[0]
            result.new[s] = r[1]
            result.delivered[s] = r[2]
            result.over[s] = r[3]
            result.failed[s] = r[4]
            result.dropped[s] = r[5]
        }
        let sum = summary["summary"]!
        guard let devices = whole(sum["devices"]), let dup = whole(sum["duplicates"]),
            let live = whole(summary["live"])
        else { return bad("summary", "`devices`, `duplicates` and `live`") }
        result.devices = Int(devices)
        result.duplicates = dup
        result.live = live
        if case .object(let pairs)? = sum["dropped"] {
            for (word, n) in pairs {
                guard let reason = DropReason(word: word), let c = whole(n) else {
                    return bad(
                        "dropped",
                        "drop reasons and counts (\(DropReason.allCases.map(\.word).joined(separator: ", ")))")
                }
                result.dropReasons[Int(reason.rawValue)] = c
            }
        }
        for x in summary["delays"]?.array ?? [] {
            guard let pair = x.array, pair.count == 2, let floor = millis(pair[0]), let c = whole(pair[1]) else {
                return bad("delays", "pairs [seconds, count]")
            }
            result.addDelays(floor: floor, count: c)
        }
        return .success(
            FleetReport(
                file: file, fingerprint: fingerprint, profiles: profiles, shard: shard, shards: shards.sorted(),
                result: result, outages: outages, capacity: capacity))
    }

    private static func whole(_ v: JSONValue?) -> Int64? {
        guard case .number(let d)? = v, d >= 0, d < 9e15, d == d.rounded() else { return nil }
        return Int64(d)
    }

    private static func millis(_ v: JSONValue?) -> Millis? {
        guard case .number(let d)? = v, d >= 0, d < 9e12 else { return nil }
        return Millis((d * 1000).rounded())
    }

    /// Sums shards of one fleet; the problem says which files do not belong together.
    static func merge(_ parts: [(path: String, report: FleetReport)]) -> Result<FleetReport, Problem> {
        guard let first = parts.first else { return .failure(Problem("outbox fleet merge: no files given")) }
        var total = first.report
        var from: [Int: String] = [:]
        for i in first.report.shards { from[i] = first.path }
        for (path, r) in parts.dropFirst() {
            guard r.fingerprint == total.fingerprint, r.result.seconds == total.result.seconds else {
                return .failure(
                    Problem(
                        "outbox fleet merge: \(path) is a run of another fleet (\(r.file), fingerprint \(r.fingerprint)) than \(first.path) (\(total.file), \(total.fingerprint)); expected shards of one fleet file"
                    ))
            }
            guard r.shard.count == total.shard.count else {
                return .failure(
                    Problem(
                        "outbox fleet merge: \(path) is a shard of \(r.shard.count), \(first.path) of \(total.shard.count); expected shards of one split"
                    ))
            }
            for i in r.shards {
                if let other = from[i] {
                    return .failure(
                        Problem(
                            "outbox fleet merge: shard \(i)/\(r.shard.count) is in both \(other) and \(path); expected each shard once"
                        ))
                }
                from[i] = path
            }
            total.result.add(r.result)
            total.shards += r.shards
        }
        total.shards.sort()
        total.shard = FleetRun.Shard(index: total.shards[0], count: total.shard.count)
        return .success(total)
    }

    /// The shards of the split missing from this report, as `I/N` words.
    var missing: [String] {
        let have = Set(shards)
        return (0..<shard.count).filter { !have.contains($0) }.map { "\($0)/\(shard.count)" }
    }

    // MARK: Text

    /// The short table: a row per stretch (about two dozen rows), then the summary.
    var text: String {
        let r = result, sum = summary
        var out = heading(profiles: "(\(profiles))") + "\n" + outageLines
        let step = FleetReport.stretch(r.seconds)
        let head = ["time", "attempts", "peak/s", "new", "delivered", "over", "failed", "dropped", "queued"]
        var rows: [[String]] = [head]
        let queued = r.queued
        var s = 0
        while s < r.seconds {
            let e = min(r.seconds, s + step)
            func total(_ a: [Int64]) -> String { String(a[s..<e].reduce(0, +)) }
            rows.append([
                FleetReport.hms(Millis(s) * 1000), total(r.attempts),
                String(r.attempts[s..<e].max() ?? 0), total(r.new), total(r.delivered), total(r.over), total(r.failed),
                total(r.dropped), String(queued[e - 1]),
            ])
            s = e
        }
        out += FleetReport.columns(rows)
        out +=
            "(a row is \(VirtualTime.duration(Millis(step) * 1000)); peak/s: the most attempts in one second of it; queued: at its end)\n"
        out +=
            "events \(sum.events), attempts \(sum.attempts) (\(Decimals.fixed(sum.amplification, 3)) per event), delivered \(sum.delivered)"
        out +=
            ", dropped "
            + (sum.dropped.isEmpty ? "0" : sum.dropped.map { "\($0.count) \($0.reason)" }.joined(separator: ", "))
        out += ", counted twice \(sum.duplicates), still queued \(sum.queuedAtEnd)\n"
        out += "answered over capacity \(sum.over), failed otherwise \(sum.failed)\n"
        let peakAt = FleetReport.hms(Millis(sum.peak.second) * 1000)
        if let rec = sum.recovery {
            out += "after the recovery at \(FleetReport.hms(rec)): peak \(sum.peak.attempts) attempts/s at \(peakAt)"
            out +=
                sum.drain.map { ", backlog drained \(VirtualTime.duration($0)) after" }
                ?? ", backlog not drained by the end"
            out += "\n"
        } else {
            out += "peak \(sum.peak.attempts) attempts/s at \(peakAt)\n"
        }
        out +=
            "delivery delay p50 \(sum.delayP50.map(FleetReport.delayText) ?? "-"), p99 \(sum.delayP99.map(FleetReport.delayText) ?? "-")\n"
        return out
    }

    /// The report's first line: the file, its devices and `profiles`, its length, capacity and shards.
    func heading(profiles: String) -> String {
        var out =
            "fleet \(file): \(result.devices) devices \(profiles), \(VirtualTime.duration(Millis(result.seconds) * 1000))"
        if let capacity { out += ", capacity \(capacity)/s" }
        if shard.count > 1 {
            out +=
                isWhole
                ? ", \(shard.count) shards merged"
                : ", shard " + shards.map { "\($0)/\(shard.count)" }.joined(separator: " ")
        }
        return out
    }

    /// A line per outage.
    var outageLines: String {
        outages.map { x in
            "outage \(FleetReport.hms(x.from))–\(x.to.map(FleetReport.hms) ?? "end"): \(x.what)\n"
        }.joined()
    }

    /// `00:30:17`.
    static func hms(_ t: Millis) -> String { String(VirtualTime.clock(t).dropLast(4)) }

    /// Rows as aligned columns: the first to the left, the others to the right, two spaces apart.
    static func columns(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        for row in rows { for (k, c) in row.enumerated() { widths[k] = max(widths[k], c.count) } }
        var out = ""
        for row in rows {
            var line = ""
            for (k, c) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[k] - c.count)
                line += k == 0 ? c + pad : "  " + pad + c
            }
            out += line + "\n"
        }
        return out
    }

    /// A delay for people: `40ms`, `1.2s`, `14m`.
    static func delayText(_ d: Millis) -> String {
        if d < 1000 { return "\(d)ms" }
        if d < 60_000 { return Decimals.fixed(Double(d) / 1000, 1) + "s" }
        if d < 3_600_000 { return Decimals.fixed(Double(d) / 60_000, 1) + "m" }
        return Decimals.fixed(Double(d) / 3_600_000, 1) + "h"
    }

    /// The seconds a table row covers: the smallest round stretch giving at most 24 rows.
    static func stretch(_ seconds: Int) -> Int {
        let steps = [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400]
        return steps.first { (seconds + $0 - 1) / $0 <= 24 } ?? 86400
    }
}
