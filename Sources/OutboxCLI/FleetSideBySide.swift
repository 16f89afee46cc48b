import OutboxCore
import OutboxUI

/// Reports of one fleet file set side by side (docs/fleet.md, "Profiles
/// compared"): the runs of `--profiles`, or a single run, as the summary's
/// figures in a column per run, and as the picture (`--format svg|html`).
extension FleetReport {
    /// What a column is headed with: the profile of a `--profiles` run, else the file's profiles.
    var column: String { label ?? profiles }

    /// The summary's figures, a row each, a value per report. The rows are the
    /// same for every report (a drop reason one run lacks is 0 there).
    static func figures(_ reports: [FleetReport]) -> [(name: String, values: [String])] {
        let sums = reports.map(\.summary)
        var reasons: [String] = []
        for sum in sums { for (reason, _) in sum.dropped where !reasons.contains(reason) { reasons.append(reason) } }
        reasons = DropReason.allCases.map(\.word).filter(reasons.contains)
        func row(_ name: String, _ value: (FleetSummary) -> String) -> (name: String, values: [String]) {
            (name, sums.map(value))
        }
        let recovered = sums.first?.recovery != nil
        var rows = [
            row("events") { String($0.events) },
            row("attempts") { String($0.attempts) },
            row("attempts per event") { Decimals.fixed($0.amplification, 3) },
            row("delivered") { String($0.delivered) },
            row("dropped") { String($0.dropped.reduce(0) { $0 + $1.count }) },
        ]
        for reason in reasons {
            rows.append(
                row("dropped " + reason) { sum in String(sum.dropped.first { $0.reason == reason }?.count ?? 0) })
        }
        rows += [
            row("counted twice") { String($0.duplicates) },
            row("still queued at the end") { String($0.queuedAtEnd) },
            row("answered over capacity") { String($0.over) },
            row("failed otherwise") { String($0.failed) },
            row(recovered ? "peak after the recovery" : "peak") { "\($0.peak.attempts)/s" },
            row("peak at") { hms(Millis($0.peak.second) * 1000) },
        ]
        if recovered {
            rows.append(row("backlog drained after") { $0.drain.map(VirtualTime.duration) ?? "not by the end" })
        }
        rows += [
            row("delivery delay p50") { $0.delayP50.map(delayText) ?? "-" },
            row("delivery delay p99") { $0.delayP99.map(delayText) ?? "-" },
        ]
        return rows
    }

    /// Several runs of one fleet as text: the peak attempts a second in each
    /// stretch, a column per run, then the summary's figures, a column per run.
    static func sideBySide(_ reports: [FleetReport]) -> String {
        let first = reports[0]
        var out = first.heading(profiles: "under " + reports.map(\.column).joined(separator: ", ")) + "\n"
        out += first.outageLines
        let seconds = first.result.seconds
        let step = stretch(seconds)
        var rows: [[String]] = [["peak/s"] + reports.map(\.column)]
        var s = 0
        while s < seconds {
            let e = min(seconds, s + step)
            rows.append([hms(Millis(s) * 1000)] + reports.map { String($0.result.attempts[s..<e].max() ?? 0) })
            s = e
        }
        out += columns(rows)
        out +=
            "(a row is \(VirtualTime.duration(Millis(step) * 1000)) from the time at its left; peak/s: the most attempts the backend saw in one second of it)\n\n"
        out += columns([[""] + reports.map(\.column)] + figures(reports).map { [$0.name] + $0.values })
        return out
    }

    /// The picture of these runs: a panel each, on the same scales.
    static func chart(_ reports: [FleetReport]) -> FleetPicture.Chart {
        let first = reports[0]
        let title =
            reports.count == 1 && first.label == nil
            ? first.heading(profiles: "(\(first.profiles))")
            : first.heading(profiles: "under " + reports.map(\.column).joined(separator: ", "))
        return FleetPicture.Chart(
            title: title, capacity: first.capacity, outages: first.outages,
            panels: reports.map { FleetPicture.Panel(label: $0.column, result: $0.result, summary: $0.summary) },
            figures: figures(reports))
    }

    /// The reports in `format` (`text`, `jsonl`, `svg`, `html`): one as it always
    /// was, several side by side; `command` heads an HTML page.
    static func written(_ reports: [FleetReport], format: String, command: String) -> String {
        switch format {
        case "jsonl": return reports.map(\.jsonl).joined()
        case "svg": return FleetPicture().svg(chart(reports))
        case "html": return FleetPicture().html(chart(reports), title: command)
        default: return reports.count == 1 && reports[0].label == nil ? reports[0].text : sideBySide(reports)
        }
    }
}
