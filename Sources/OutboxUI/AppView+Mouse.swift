import OutboxCore

/// What lies under each cell of the screen, from the same layout the view
/// draws with: the mouse's clicks and wheel are resolved here, never by
/// geometry kept a second time in the model.
extension AppView {
    /// A place on the screen a click or the wheel can act on.
    public enum Spot: Equatable, Sendable {
        /// A state tab.
        case tab(StateTab)
        /// A sortable column's title in the list's heading.
        case column(ListSort)
        /// A row of the list: an index into the list as shown (filtered, sorted).
        case row(Int)
        /// The list below its last row, or its heading between titles.
        case list
        /// The detail pane (its title line included), or the full-screen detail.
        case detail
        /// The log pane (its title line included).
        case log
    }

    /// What is at column `x`, row `y` of a screen of this size showing `m`; nil
    /// where nothing answers the mouse (the header, the backend box, the status bar).
    public static func spot(_ m: AppModel, x: Int, y: Int, width: Int, height: Int) -> Spot? {
        guard width >= minWidth, height >= minHeight, x >= 0, y >= 0, x < width, y < height - 1 else { return nil }
        let headRows = headerLines(m, width: width, g: .unicode).count
        if m.detailExpanded && !m.isComparing { return y > headRows ? .detail : nil }
        if y == headRows {
            guard m.banner == nil else { return nil }
            return tabSpans(m, width: width).first { x >= $0.x && x < $0.x + $0.width }.map { .tab($0.tab) }
        }
        let list: Rect, below: Rect
        if m.isComparing {
            let L = compareLayout(m, width: width, height: height, headerRows: headRows)
            (list, below) = (L.list, Rect(x: 0, y: L.detail.y - 1, width: width, height: L.detail.height + 1))
            if y == list.y { return compareColumnSpot(m, x: x, width: width).map { .column($0) } ?? .list }
        } else {
            let L = layout(m, width: width, height: height, headerRows: headRows)
            (list, below) = (L.list, Rect(x: 0, y: L.detail.y - 1, width: width, height: height - L.detail.y))
            if y == list.y { return columnSpot(x: x, width: width).map { .column($0) } ?? .list }
            if y >= L.log.y - 1 && y < L.log.maxY { return .log }
            if y >= L.detail.y - 1 && y < L.detail.maxY { return x < L.backend.x - 1 ? .detail : nil }
        }
        if y > list.y && y < list.maxY {
            let row = m.top + (y - list.y - 1)
            return row < m.rowCount ? .row(row) : .list
        }
        if y >= below.y && y < below.maxY { return .detail }
        return nil
    }

    /// Where the tabs are drawn: each tab's first column and width (`tabs`, `compareTabs`).
    static func tabSpans(_ m: AppModel, width: Int) -> [(tab: StateTab, x: Int, width: Int, text: String)] {
        let short = width < 100
        var x = short ? 0 : (m.isComparing ? " Rows " : " Requests ").count
        var out: [(StateTab, Int, Int, String)] = []
        let filtered = m.filteredCounts
        for t in StateTab.allCases {
            var n: Int
            if m.isComparing {
                n = t.state.map { (filtered ?? m.compareCounts.inState)[Int($0.rawValue)] } ?? m.match.rows.count
                if t == .all, filtered != nil { n = m.filteredAllRows }
            } else {
                n = t.state.map { m.sim.count($0) } ?? m.sim.requests.count
                if let c = filtered { n = t.state.map { c[Int($0.rawValue)] } ?? m.filteredAllRows }
            }
            let label = short ? ["all", "pend", "fly", "retry", "queue", "deliv", "drop"][t.rawValue] : t.word
            let text = " \(label) \(n) "
            out.append((t, x, text.count, text))
            x += text.count
        }
        return out
    }

    /// The sortable column whose title spans column `x` of the list's heading.
    static func columnSpot(x: Int, width: Int) -> ListSort? {
        let c = columns(width: width)
        let spans: [(ListSort, Int, Int)] = [
            (.id, c.id, c.kind), (.name, c.name, c.state), (.state, c.state, c.att), (.attempts, c.att, c.next),
            (.next, c.next, c.nextInLast ? c.rule : c.last),
        ]
        return spans.first { x >= $0.1 && x < $0.2 }?.0
    }

    /// A compare's heading: the name, and the first column's state (under its
    /// profile's name), attempts and next attempt.
    static func compareColumnSpot(_ m: AppModel, x: Int, width: Int) -> ListSort? {
        let c = compareColumns(width: width, count: m.columns.count)
        let x0 = c.xs[0]
        if x >= 2 && x < x0 - 1 { return .name }
        if c.short { return x >= x0 && x < x0 + c.colW ? .state : nil }
        let spans: [(ListSort, Int, Int)] = [
            (.state, x0, x0 + c.att), (.attempts, x0 + c.att, x0 + c.next), (.next, x0 + c.next, x0 + c.colW),
        ]
        return spans.first { x >= $0.1 && x < $0.2 }?.0
    }

    /// The mark before the sorted column's title.
    static func sortMark(_ g: Glyphs) -> String { g.isASCII ? "*" : "▾" }
}
