import Dispatch
import OutboxCore
import OutboxFoundation
import OutboxTerminal
import OutboxUI

/// `outbox fleet FILE --live`'s loop (docs/fleet.md, "Live"): the wall clock
/// passed to `FleetLiveModel`, seconds of virtual time stepped while they are
/// due (at most `stepBudgetMs` of wall time between frames, so a fleet too big
/// to keep up still draws, its lag shown), `FleetLiveView` drawn, keys turned
/// into the model's moves. It ends on `q`, a stop signal or the terminal going
/// away; the terminal is restored before it returns.
enum FleetScreen {
    struct Outcome {
        var model: FleetLiveModel
        /// The stop signal that ended it, or 0.
        var signal: Int32
        var terminalLost: Bool
    }

    /// A frame every 50 ms while the clock runs.
    static let frameMs: UInt64 = 50
    /// How long stepping may take between two looks at the keys and the screen.
    static let stepBudgetMs: UInt64 = 40
    static let messageMs: UInt64 = 4000

    static func wallMs() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    static func run(_ start: FleetLiveModel, theme: Theme, noColor: Bool) -> Result<Outcome, Problem> {
        guard let term = Terminal(noColor: noColor, mouse: false) else {
            return .failure(
                Problem(
                    "outbox fleet: curses could not start on the terminal '\(InteractiveCommand.shown(InteractiveCommand.termName))'; run it without --live for the report"
                ))
        }
        // Restored on every way out of the loop (a key, a signal, the terminal gone).
        defer { term.restore() }
        term.use(noColor || !term.colors ? Theme.monochrome : theme)
        let glyphs: Glyphs = term.utf8 ? .unicode : .ascii
        var model = start
        var lastFrame: UInt64 = 0, lastWall = wallMs()
        var dirty = true
        var messageText: String?
        var messageSince: UInt64 = 0
        while true {
            let sig = Terminal.stopSignal
            if sig != 0 || term.inputLost {
                return .success(Outcome(model: model, signal: sig, terminalLost: sig == 0))
            }
            let now = wallMs()
            model.wallTimePassed(ms: Int64(now - lastWall), stopped: Terminal.takeContinued())
            lastWall = now
            // The seconds due, within the budget: the rest wait for the next turn (the lag shows).
            let began = wallMs()
            var stepped = false
            while model.canStep && wallMs() - began < stepBudgetMs {
                model.stepSecond()
                stepped = true
            }
            if model.message?.text != messageText {
                messageText = model.message?.text
                messageSince = wallMs()
                dirty = true
            } else if messageText != nil && wallMs() - messageSince >= messageMs {
                model.message = nil
                messageText = nil
                dirty = true
            }
            if dirty || (stepped && wallMs() - lastFrame >= frameMs) || wallMs() - lastFrame >= 1000 {
                term.draw(FleetLiveView.render(model, width: term.realWidth, height: term.realHeight, glyphs: glyphs))
                lastFrame = wallMs()
                dirty = false
            }
            let wait: Int32 = model.canStep ? 1 : Int32(frameMs)
            guard let key = term.readKey(timeoutMs: wait) else { continue }
            dirty = true
            if key == .resize {
                term.refreshSize()
                continue
            }
            if model.handle(key) == .quit { return .success(Outcome(model: model, signal: 0, terminalLost: false)) }
        }
    }
}
