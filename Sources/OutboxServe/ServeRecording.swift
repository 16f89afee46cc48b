import OutboxCore

/// `outbox serve --record FILE`: what was seen as a scenario file that `outbox
/// run` plays in the simulator. Each event becomes a `track` at its first
/// arrival; the answers its attempts got become `server ... for NAME` lines, a
/// line for each run of one answer, written at the attempt that began it (the
/// plan a simulated retry takes is the one in force at its own time). Events
/// that share a name share their plans: the recording says so when they do.
public enum ServeRecording {
    public static func scenario(_ s: ServeSession, profile: String, endedAt: Millis, source: String) -> String {
        var lines: [(time: Millis, order: Int, text: String)] = []
        var order = 0
        func add(_ t: Millis, _ text: String) {
            lines.append((t, order, text))
            order += 1
        }
        var names: [String: Int] = [:]
        for e in s.events { names[e.name, default: 0] += 1 }
        for e in s.events {
            let rs = e.attempts.map { s.requests[$0] }
            guard let first = rs.first else { continue }
            var k = 0
            while k < rs.count {
                var j = k
                while j + 1 < rs.count && rs[j + 1].answer == rs[k].answer { j += 1 }
                if rs[k].answer != .ok {
                    add(
                        rs[k].time,
                        ActionSyntax.text(for: .serverPlanned(rs[k].answer, .times(j - k + 1), for: .name(e.name))))
                }
                k = j + 1
            }
            add(first.time, "track " + ActionSyntax.word(e.name))
        }
        // Plans first at an instant, then the events: a plan is in force when its event goes out.
        lines.sort { a, b in
            if a.time != b.time { return a.time < b.time }
            let (ap, bp) = (a.text.hasPrefix("server"), b.text.hasPrefix("server"))
            return ap != bp ? ap : a.order < b.order
        }
        var out = [
            "# Recorded by outbox serve from \(source): \(s.events.count) event\(s.events.count == 1 ? "" : "s") in \(s.requests.count) request\(s.requests.count == 1 ? "" : "s"), ended at \(VirtualTime.clock(endedAt)).",
            "# Each event is tracked at its first arrival; the answers its attempts got are plans for its name.",
        ]
        let shared = names.filter { $0.value > 1 }.keys.sorted()
        if !shared.isEmpty {
            out.append(
                "# Events sharing a name share its plans: "
                    + shared.prefix(5).map { "\($0) (\(names[$0]!))" }.joined(
                        separator: ", ") + (shared.count > 5 ? ", …" : ""))
        }
        out.append("profile " + ActionSyntax.word(profile))
        out.append("at 00:00:00.000 launch")
        for l in lines { out.append("at " + VirtualTime.clock(l.time) + " " + l.text) }
        return out.joined(separator: "\n") + "\n"
    }
}
