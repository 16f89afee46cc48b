import OutboxCore
import OutboxUI

extension BenchFigures {
    /// `S` on 10^6 requests (issue 15): per order, the key (or a new request)
    /// and the frame after it, timed together (the list sorted afresh, then
    /// drawn), and a frame after that (the order kept in the list memo). Medians
    /// over `passes`: the first pass is `S`, the others a request tracked offline.
    static func sortedFrame(big: Int, passes: Int) -> [(order: String, passMs: Double, frameUs: Double)] {
        var m = AppModel(sim: queuedModel(big))
        m.setScreen(width: 200, height: 60)
        m.laidOut(AppView.layout(for: m))
        var out: [(String, Double, Double)] = []
        for _ in ListSort.allCases {
            var pass: [Double] = [], frame: [Double] = []
            for p in 0..<passes {
                // Each pass sorts afresh: the key, then a new request (the model changed).
                let t0 = nowNs()
                if p == 0 { _ = m.handle(.char("S")) } else { m.perform(.eventTracked(TrackedEvent(name: "bench"))) }
                var buf = AppView.render(m, width: 200, height: 60)
                let t1 = nowNs()
                buf = AppView.render(m, width: 200, height: 60)
                let t2 = nowNs()
                if buf.width != 200 { print("") }
                pass.append(Double(t1 - t0) / 1e6)
                frame.append(Double(t2 - t1) / 1000)
            }
            pass.sort()
            frame.sort()
            out.append((m.sort.word, pass[pass.count / 2], frame[frame.count / 2]))
        }
        return out
    }
}
