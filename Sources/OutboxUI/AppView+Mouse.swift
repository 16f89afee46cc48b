import OutboxCore

/// What lies under each cell of the screen, from the layout the last frame was
/// drawn with (`AppView.Layout`, kept by the model): the mouse's clicks and
/// wheel are resolved here, never by geometry the model works out itself.
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

    /// What is at column `x`, row `y` of `m`'s screen, as its last frame laid
    /// it out (`m.layout`, `Layout.spot`).
    public static func spot(_ m: AppModel, x: Int, y: Int) -> Spot? {
        m.layout.spot(x: x, y: y, screen: m.screen, top: m.top, rows: m.rowCount)
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

    /// Where the sortable titles of the list's heading are.
    static func titleSpans(width: Int) -> [TitleSpan] {
        let c = columns(width: width)
        return [
            TitleSpan(sort: .id, x: c.id, end: c.kind), TitleSpan(sort: .name, x: c.name, end: c.state),
            TitleSpan(sort: .state, x: c.state, end: c.att), TitleSpan(sort: .attempts, x: c.att, end: c.next),
            TitleSpan(sort: .next, x: c.next, end: c.nextInLast ? c.rule : c.last),
        ]
    }

    /// A compare's heading: the name, and the first column's state (under its
    /// profile's name), attempts and next attempt.
    static func compareTitleSpans(_ m: AppModel, width: Int) -> [TitleSpan] {
        let c = compareColumns(width: width, count: m.columns.count)
        let x0 = c.xs[0]
        let name = TitleSpan(sort: .name, x: 2, end: x0 - 1)
        if c.short { return [name, TitleSpan(sort: .state, x: x0, end: x0 + c.colW)] }
        return [
            name, TitleSpan(sort: .state, x: x0, end: x0 + c.att),
            TitleSpan(sort: .attempts, x: x0 + c.att, end: x0 + c.next),
            TitleSpan(sort: .next, x: x0 + c.next, end: x0 + c.colW),
        ]
    }

    /// The mark before the sorted column's title.
    static func sortMark(_ g: Glyphs) -> String { g.isASCII ? "*" : "▾" }
}

extension AppView.Layout {
    /// What is at column `x`, row `y` of a screen of this size laid out so;
    /// nil where nothing answers the mouse (the header, the backend box, the
    /// status bar). The list's rows are the model's: `top` the first shown, of `rows`.
    public func spot(x: Int, y: Int, screen: ScreenSize, top: Int, rows: Int) -> AppView.Spot? {
        let (width, height) = (screen.width, screen.height)
        guard width >= AppView.minWidth, height >= AppView.minHeight, x >= 0, y >= 0, x < width, y < height - 1 else {
            return nil
        }
        if fullDetail { return y > headerRows ? .detail : nil }
        if y == headerRows {
            guard tabsShown else { return nil }
            return tabs.first { x >= $0.x && x < $0.x + $0.width }.map { .tab($0.tab) }
        }
        let list: Rect, below: Rect
        if let C = compare {
            (list, below) = (C.list, Rect(x: 0, y: C.detail.y - 1, width: width, height: C.detail.height + 1))
            if y == list.y { return titleSpot(x: x) ?? .list }
        } else {
            let P = panes
            (list, below) = (P.list, Rect(x: 0, y: P.detail.y - 1, width: width, height: height - P.detail.y))
            if y == list.y { return titleSpot(x: x) ?? .list }
            if y >= P.log.y - 1 && y < P.log.maxY { return .log }
            if y >= P.detail.y - 1 && y < P.detail.maxY { return x < P.backend.x - 1 ? .detail : nil }
        }
        if y > list.y && y < list.maxY {
            let row = top + (y - list.y - 1)
            return row < rows ? .row(row) : .list
        }
        if y >= below.y && y < below.maxY { return .detail }
        return nil
    }

    /// The sortable title under column `x` of the list's heading, as a column.
    func titleSpot(x: Int) -> AppView.Spot? {
        titles.first { x >= $0.x && x < $0.end }.map { .column($0.sort) }
    }
}
