import OutboxCore
import OutboxFoundation
import OutboxUI

extension BenchFigures {
    /// The list filter (issue 12): frames at 200×60 with `filter` typed after
    /// `/`, 10^6 requests beside 10^3 as `frame` does, and the one pass over all
    /// requests the filter costs when the model changed: a key and the frame after it
    /// (median of `passes`, ms).
    static func filteredFrame(big: Int, small: Int, frames: Int, filter: String, passes: Int)
        -> (bigMedianUs: Double, bigP99Us: Double, smallMedianUs: Double, passMs: Double)
    {
        var models = [AppModel(sim: queuedModel(small)), AppModel(sim: queuedModel(big))]
        for i in models.indices {
            models[i].setScreen(width: 200, height: 60)
            models[i].laidOut(AppView.layout(for: models[i]))
            _ = models[i].handle(.char("/"))
            for c in filter.unicodeScalars { _ = models[i].handle(.char(c)) }
            _ = models[i].handle(.enter)
        }
        var times: [[Double]] = [[], []]
        for f in 0..<frames {
            for i in models.indices {
                models[i].tick(to: models[i].sim.now + 33)
                if f % 10 == 0 { _ = models[i].handle(.char("k")) }
                let t0 = nowNs()
                let buf = AppView.render(models[i], width: 200, height: 60)
                let t1 = nowNs()
                if buf.width != 200 { print("") }
                times[i].append(Double(t1 - t0) / 1000)
            }
        }
        // A change of the model (here: the tab) makes the next frame filter afresh.
        var pass: [Double] = []
        for _ in 0..<passes {
            let t0 = nowNs()
            _ = models[1].handle(.char("]"))
            let buf = AppView.render(models[1], width: 200, height: 60)
            pass.append(Double(nowNs() - t0) / 1e6)
            if buf.width != 200 { print("") }
        }
        let s = times[0].sorted(), b = times[1].sorted()
        pass.sort()
        return (b[b.count / 2], b[min(b.count - 1, b.count * 99 / 100)], s[s.count / 2], pass[pass.count / 2])
    }
}
