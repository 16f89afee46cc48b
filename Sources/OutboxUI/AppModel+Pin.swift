import OutboxCore

/// `E`: the state pinned as `expect` lines in the recording (issue 15), so a
/// session explored by hand replays as a test with `outbox run`.
extension AppModel {
    /// The `expect` lines that pin every column's state now, in the scenario
    /// syntax at the current virtual time. Comparing, one set per column, each
    /// `expect on` its profile (its own request ids: `outbox compare` plays the
    /// file once per profile).
    public func pinLines() -> [(line: String, onFirst: Bool)] {
        let t = VirtualTime.duration(sim.now)
        var out: [(String, Bool)] = []
        for (i, column) in columns.enumerated() {
            let head =
                isComparing
                ? "expect on \(ActionSyntax.word(recordedReference(column.profile))) at \(t) " : "expect at \(t) "
            for c in column.pinnedChecks() { out.append((head + CheckSyntax.text(for: c), i == 0)) }
        }
        return out
    }

    /// Appends `pinLines()` to the recording and says how many.
    mutating func pin() {
        guard isRecording else {
            message = ("E pins the state into a recording, expected outbox --record FILE", true)
            return
        }
        guard !recordingStopped else {
            message = ("E pins nothing: the recording stopped (its file could not be written)", true)
            return
        }
        let lines = pinLines()
        recorded.append("# E at \(VirtualTime.clock(sim.now)): the state pinned")
        recordedOnFirst.append(true)
        for l in lines {
            recorded.append(l.line)
            recordedOnFirst.append(l.onFirst)
        }
        pinnedAt = sim.now
        say(
            "pinned \(lines.count) expect line\(lines.count == 1 ? "" : "s") at \(VirtualTime.duration(sim.now)) in the recording"
        )
    }

    /// An `expect` line at instant T checks the state after every line at T
    /// (ORDER), so an action taken after `E` in the same instant (the clock
    /// paused) would change what the pin replays as. The clock moves 1 ms first.
    mutating func stepPastPin() {
        guard let t = pinnedAt, t == sim.now else { return }
        let wasPaused = paused, why = pauseWhy
        paused = false
        tick(to: t + 1)
        if !paused {
            paused = wasPaused
            pauseWhy = why
        }
    }
}
