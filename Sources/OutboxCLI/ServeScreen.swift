import Dispatch
import OutboxCore
import OutboxFoundation
import OutboxServe
import OutboxTerminal
import OutboxUI

/// `outbox serve`'s live screen: the server runs as headless, and this loop
/// polls its session (read where it is, never copied) at a steady frame rate,
/// draws `ServeView`, and turns keys into `ServeModel`'s effects on the
/// session (plans, network, the breakpoint, a held request's answer). It ends
/// on `q`, a stop signal, the terminal going away, or an explicit `--until`;
/// the terminal is restored before it returns, so the report can follow.
enum ServeScreen {
    struct Outcome {
        var endedAt: Millis
        /// The stop signal that ended it, or 0.
        var signal: Int32
        /// Ended by `q`.
        var quit: Bool
    }

    /// A frame every 100 ms: the clocks in the rows move, new requests show.
    static let frameMs: UInt64 = 100
    /// How long a message shows in place of the status bar's keys.
    static let messageMs: UInt64 = 4000

    static func wallMs() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    static func run(
        server: any ServeListener, model start: ServeModel, theme: Theme, noColor: Bool, until: ServeCommand.End?,
        checkDue: (Millis) -> Void
    ) -> Result<Outcome, Problem> {
        guard let term = Terminal(noColor: noColor, mouse: false) else {
            return .failure(
                Problem(
                    "outbox serve: curses could not start on the terminal '\(InteractiveCommand.shown(InteractiveCommand.termName))'; "
                        + ServeCommand.runHeadless))
        }
        // Restored on every way out of the loop (a key, a signal, the terminal gone).
        defer { term.restore() }
        term.use(noColor || !term.colors ? Theme.monochrome : theme)
        let glyphs: Glyphs = term.utf8 ? .unicode : .ascii
        var model = start
        model.setScreen(width: term.width, height: term.height)
        var lastFrame: UInt64 = 0
        var dirty = true
        var messageText: String?
        var messageSince: UInt64 = 0
        while true {
            let online = server.tick()
            try? server.follow(online: online)
            let now = server.now()
            checkDue(now)
            let sig = Terminal.stopSignal
            if sig != 0 || term.inputLost {
                return .success(Outcome(endedAt: now, signal: sig == 0 ? SIGHUP : sig, quit: false))
            }
            if let end = until {
                let done: Bool
                switch end {
                case .after(let d): done = now >= d
                case .idle(let d):
                    let last = server.reading { $0.lastRequestAt }
                    done = last.map { now - $0 >= d } ?? false
                }
                if done { return .success(Outcome(endedAt: now, signal: 0, quit: false)) }
            }
            if model.message?.text != messageText {
                messageText = model.message?.text
                messageSince = wallMs()
            } else if messageText != nil && wallMs() - messageSince >= messageMs {
                model.message = nil
                messageText = nil
                dirty = true
            }
            if dirty || wallMs() - lastFrame >= frameMs {
                model.tick(now: now)
                let m = model
                term.draw(
                    server.reading { s in
                        ServeView.render(m, s, width: term.realWidth, height: term.realHeight, glyphs: glyphs)
                    })
                lastFrame = wallMs()
                dirty = false
            }
            guard let key = term.readKey(timeoutMs: Int32(frameMs)) else { continue }
            dirty = true
            if key == .resize {
                term.refreshSize()
                model.setScreen(width: term.width, height: term.height)
                continue
            }
            let effect = server.reading { s in model.handle(key, s) }
            switch effect {
            case nil: break
            case .quit?: return .success(Outcome(endedAt: server.now(), signal: 0, quit: true))
            case .release(let token, let answer)?:
                if !server.release(token, answer: answer) {
                    model.message = ("that request is no longer held (its client closed)", true)
                }
            case let e?:
                server.changing { s, t in _ = e.apply(to: &s, at: t) }
            }
        }
    }
}
