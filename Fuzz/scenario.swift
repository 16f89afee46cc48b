// fuzz-modules: OutboxCore
// fuzz-seeds: examples/*.outbox
// fuzz-max-len: 8192
//
// Fuzz target `scenario`: any bytes as a scenario file. They are parsed as
// `outbox run` parses them; a scenario that parses is then played to the end on
// an in-memory device, every timeline line written in both formats, as `outbox
// run` does. Along the way each action must read back to itself from the words
// it is written as (what `--record` writes is what replay reads).
//
// Bounded: a play stops after 10,000 instants or 100,000 transitions. Every
// scenario that parses is played: the overflows fuzzing first ran into (times
// and delays past the clock, revenue past Int64, budgets of 10^9 attempts) are
// refused or cannot happen since issue 10's limits (docs/reliability.md).
import OutboxCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the lengths of the lines written go, so that writing them is not optimized away.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard case .success(let scenario) = Scenario.parse(text, file: "fuzz.outbox") else { return 0 }
    for step in scenario.steps {
        if case .action(let a) = step.content { checkRoundTrip(a) }
        checkRoundTrip(step.time)
    }
    var runner = ScenarioRunner(scenario)
    let plain = TimelineWriter(format: .text), jsonl = TimelineWriter(format: .jsonl)
    var instants = 0
    var written = 0
    while instants < 10_000 && runner.sim.transitionCount < 100_000 {
        let more = runner.step { item, sim in
            switch item {
            case .entry(let e):
                written &+= plain.line(e, in: sim).utf8.count &+ jsonl.line(e, in: sim).utf8.count
            case .check(let r):
                written &+= plain.check(r).utf8.count &+ jsonl.check(r).utf8.count
            }
        }
        if !more { break }
        instants += 1
    }
    sink &+= written
    return 0
}

/// What `ActionSyntax.text` writes, `ActionSyntax.parse` reads back to the same action.
func checkRoundTrip(_ a: Action) {
    let written = ActionSyntax.text(for: a)
    guard case .success(let lexed) = LineLexer.words(written) else {
        fatalError("the words written for \(a) do not lex: \(written)")
    }
    guard case .success(let back)? = ActionSyntax.parse(lexed.words), back == a else {
        fatalError("\(a) is written as `\(written)`, which reads back as \(String(describing: ActionSyntax.parse(lexed.words)))")
    }
}

/// A time as `--record` writes it (`VirtualTime.duration`) reads back to itself
/// (every time a scenario can hold is at most `VirtualTime.maxInput`).
func checkRoundTrip(_ t: Millis) {
    let written = VirtualTime.duration(t)
    guard VirtualTime.parse(written) == t else {
        fatalError("the time \(t) is written as `\(written)`, which reads back as \(String(describing: VirtualTime.parse(written)))")
    }
}
