import OutboxCore

/// The time axis the list's timeline is drawn on: display columns, each standing
/// for one step of `step` milliseconds, except where a long quiet stretch (no mark
/// in any row shown) is cut out and drawn as its length (`+30s`).
///
/// Pure: built from the moments that matter (transitions of the rows shown,
/// network changes, now) and the room; the view decides where it is anchored.
public struct TimelineAxis: Equatable, Sendable {
    /// Milliseconds one ordinary column stands for.
    public var step: Millis
    /// Per display column, the virtual time it starts at. A cut's columns all hold
    /// the start of the stretch it stands for.
    public var times: [Millis]
    /// Per display column, the character of the cut's label, or nil for an ordinary column.
    public var cut: [Unicode.Scalar?]
    /// Whether the last column holds now (the window ends at the present).
    public var endsAtNow: Bool
    /// The moment the last column ends: a step after its start, or where a
    /// trailing cut's stretch ends.
    public var end: Millis

    /// The scales `z`/`Z` step through, in milliseconds per column.
    public static let ladder: [Millis] = [
        100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000,
        3_600_000,
    ]
    /// The ladder's index of the scale a fit never goes below (1 s): finer scales
    /// are there to zoom into, and would redraw the whole lane on every frame.
    public static let fitFloor = 3
    /// A quiet stretch of at least this many columns is cut.
    public static let minCut = 8

    public var count: Int { times.count }

    /// The display column that holds moment `t`: the last column starting at or
    /// before it; -1 before the first, `count` at or after the end.
    public func column(of t: Millis) -> Int {
        guard let first = times.first else { return -1 }
        if t < first { return -1 }
        if t >= end { return count }
        var lo = 0, hi = count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if times[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// How a scale reads on screen: `1 col = 10 s`.
    public static func scaleText(_ step: Millis) -> String {
        if step < 1000 { return "1 col = \(step) ms" }
        if step < 60_000 { return "1 col = \(step / 1000) s" }
        if step < 3_600_000 { return "1 col = \(step / 60_000) min" }
        return "1 col = \(step / 3_600_000) h"
    }

    /// A cut's label: the quiet time between the marks on either side (`+30s`, `+2m`).
    public static func cutText(_ ms: Millis) -> String {
        let m = max(0, ms)
        if m < 10_000 { return "+" + String(m / 1000) + "." + String((m % 1000) / 100) + "s" }
        if m < 100_000 { return "+" + String((m + 500) / 1000) + "s" }
        if m < 6_000_000 { return "+" + String((m + 30_000) / 60_000) + "m" }
        if m < 360_000_000 { return "+" + String((m + 1_800_000) / 3_600_000) + "h" }
        return "+" + String((m + 43_200_000) / 86_400_000) + "d"
    }

    /// Builds the axis from `anchor`, column by column, towards the past
    /// (`backwards`, the anchor's column last) or the future (the anchor's column
    /// first), until `cols` columns are made. `moments` are sorted. Going forward
    /// the axis stops at now: later columns stand for the future, ordinary and empty.
    ///
    /// `split` (sorted) are moments that must not share a column with another of
    /// them in the same ordinary column (one row's marks close together, such as
    /// jittered attempts): such a column is stretched locally into one column per
    /// moment, each starting at its moment, so every mark keeps a cell of its own.
    /// `keep` is a stretch never cut (a life drawn to scale).
    public static func build(
        moments: [Millis], step: Millis, anchor: Millis, now: Millis, cols: Int, backwards: Bool,
        split: [Millis] = [], keep: Range<Millis>? = nil
    ) -> TimelineAxis {
        var times: [Millis] = []
        var cut: [Unicode.Scalar?] = []
        times.reserveCapacity(cols)
        cut.reserveCapacity(cols)
        func colOf(_ t: Millis) -> Millis { t >= 0 ? t / step : (t - step + 1) / step }
        let kAnchor = colOf(anchor)
        let kNow = colOf(now)
        // The columns holding a moment, with the earliest and latest moment in each.
        var keys: [Millis] = [], firsts: [Millis] = [], lasts: [Millis] = []
        for t in moments {
            let k = colOf(t)
            if keys.last == k {
                lasts[lasts.count - 1] = t
            } else {
                keys.append(k)
                firsts.append(t)
                lasts.append(t)
            }
        }
        // The anchor's column and now's count as marked: a cut never swallows them.
        func insert(_ k: Millis, _ t: Millis) {
            var i = 0
            while i < keys.count && keys[i] < k { i += 1 }
            if i < keys.count && keys[i] == k { return }
            keys.insert(k, at: i)
            firsts.insert(t, at: i)
            lasts.insert(t, at: i)
        }
        insert(kAnchor, anchor)
        insert(kNow, now)
        /// Index of the first marked column >= k.
        func firstAtOrAfter(_ k: Millis) -> Int {
            var lo = 0, hi = keys.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if keys[mid] < k { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        /// The starts of column k's extra columns: its split moments after the first, in order.
        func subStarts(_ k: Millis) -> [Millis] {
            guard !split.isEmpty else { return [] }
            let lo = k * step, hi = lo + step
            var out: [Millis] = []
            // Binary search for the first split moment after the column's start.
            var a = 0, b = split.count
            while a < b {
                let mid = (a + b) / 2
                if split[mid] <= lo { a = mid + 1 } else { b = mid }
            }
            var si = a
            while si < split.count && split[si] < hi {
                if out.last != split[si] { out.append(split[si]) }
                si += 1
            }
            // The first stays in the column itself; the others start columns of their own.
            return Array(out.dropFirst())
        }
        /// Whether the quiet columns kp+1 ..< kn may be cut (none inside `keep`).
        func mayCut(_ kp: Millis, _ kn: Millis) -> Bool {
            guard let keep else { return true }
            return (kp + 1) * step >= keep.upperBound || kn * step <= keep.lowerBound
        }
        var k = kAnchor
        // Going back, the anchor's column is the last; going forward, tracked as columns are made.
        var lastEnd = (kAnchor + 1) * step
        if backwards {
            while times.count < cols {
                let i = firstAtOrAfter(k)
                if i < keys.count && keys[i] == k {
                    for t in subStarts(k).reversed() where times.count < cols {
                        times.append(t)
                        cut.append(nil)
                    }
                    if times.count < cols {
                        times.append(k * step)
                        cut.append(nil)
                    }
                    k -= 1
                    continue
                }
                // Quiet from k down to the previous marked column.
                if i > 0 && i < keys.count {
                    let kp = keys[i - 1], kn = keys[i]
                    let label = Array(cutText(firsts[i] - lasts[i - 1]).unicodeScalars)
                    if kn - kp - 1 >= minCut && k == kn - 1 && label.count <= cols - times.count && mayCut(kp, kn) {
                        for s in label.reversed() {
                            times.append((kp + 1) * step)
                            cut.append(s)
                        }
                        k = kp
                        continue
                    }
                }
                times.append(k * step)
                cut.append(nil)
                k -= 1
            }
            times.reverse()
            cut.reverse()
        } else {
            while times.count < cols {
                if k > kNow {
                    times.append(k * step)
                    cut.append(nil)
                    k += 1
                    lastEnd = k * step
                    continue
                }
                let i = firstAtOrAfter(k)
                if i < keys.count && keys[i] == k {
                    times.append(k * step)
                    cut.append(nil)
                    for t in subStarts(k) where times.count < cols {
                        times.append(t)
                        cut.append(nil)
                    }
                    k += 1
                    lastEnd = k * step
                    continue
                }
                if i > 0 && i < keys.count {
                    let kp = keys[i - 1], kn = keys[i]
                    let label = Array(cutText(firsts[i] - lasts[i - 1]).unicodeScalars)
                    if kn - kp - 1 >= minCut && k == kp + 1 && label.count <= cols - times.count && mayCut(kp, kn) {
                        for s in label {
                            times.append((kp + 1) * step)
                            cut.append(s)
                        }
                        k = kn
                        lastEnd = kn * step
                        continue
                    }
                }
                times.append(k * step)
                cut.append(nil)
                k += 1
                lastEnd = k * step
            }
        }
        let last = times.count - 1
        // (The last column may be one of now's column stretched: it still holds now.)
        let endsAtNow = last >= 0 && cut[last] == nil && colOf(times[last]) == kNow
        return TimelineAxis(step: step, times: times, cut: cut, endsAtNow: endsAtNow, end: lastEnd)
    }
}
