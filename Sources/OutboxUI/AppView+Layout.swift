import OutboxCore

/// The screen's size: stored once, on the model (`AppModel.screen`), set by the
/// loop at the start and on a resize.
extension Rect {
    /// No room: a layout's rects before the first frame.
    static let none = Rect(x: 0, y: 0, width: 0, height: 0)
}

public struct ScreenSize: Equatable, Sendable {
    public var width: Int, height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A frame's layout: where the view puts things, as the model needs to know it
/// between frames. The loop makes it once a frame (`layout(for:)`, from the
/// model and its screen size), just before drawing, and gives it to the model
/// (`AppModel.laidOut`); the keys and clicks until the next frame read it: the
/// list's page, how far the detail and log scroll, what is under the mouse
/// (`spot`), the timeline's scale on screen. The model never asks the view.
extension AppView {
    public struct Layout: Equatable, Sendable {
        /// Rows of list shown (a page of the list), at least 1.
        public internal(set) var listRows = 10
        /// The header's rows.
        var headerRows = 1
        /// Laid out comparing, or with one column's detail full-screen.
        var comparing = false, fullDetail = false
        /// The tabs' row shows the tabs (not the purge banner).
        var tabsShown = true
        /// One column's panes (laid out comparing too: the log's and the detail's rows).
        var panes = PaneRects(list: .none, detail: .none, backend: .none, log: .none)
        /// Comparing: the list and the detail.
        var compare: CompareLayout?
        /// Where the detail's history goes (`detailHistoryRect`).
        var detailHistory = Rect.none
        /// The selected request's detail history at that width (one column).
        var detailDoc: DetailExtent?
        /// Comparing: rows the detail needs to show every column's whole story,
        /// and the rows the full-screen detail has (Enter says when it would add nothing).
        var compareDetailNeeds = 0, compareExpandedRows = 0
        /// Where each tab is drawn (`tabSpans`).
        var tabs: [TabSpan] = []
        /// Where the list heading's sortable titles are.
        var titles: [TitleSpan] = []
        /// The timeline's scale on screen, an index of `TimelineAxis.ladder` (`z`/`Z` step from it).
        var timelineScale = TimelineAxis.fitFloor

        public init() {}
    }

    /// The length of a request's detail history and its first line unscrolled (`detailTop`).
    struct DetailExtent: Equatable, Sendable {
        var id: Int32, lines: Int, start: Int
    }

    struct TabSpan: Equatable, Sendable {
        var tab: StateTab, x: Int, width: Int
    }

    /// A sortable title of the list's heading: columns `x..<end`.
    struct TitleSpan: Equatable, Sendable {
        var sort: ListSort, x: Int, end: Int
    }

    /// The layout of a frame showing `m` on its screen (`m.screen`). Measured
    /// with Unicode's glyphs whatever the terminal draws with, as ever.
    public static func layout(for m: AppModel) -> Layout {
        let (width, height) = (m.screen.width, m.screen.height)
        var L = Layout()
        let head = headerLines(m, width: width, g: .unicode).count
        L.headerRows = head
        L.comparing = m.isComparing
        L.fullDetail = m.detailExpanded && !m.isComparing
        L.tabsShown = m.banner == nil
        L.panes = paneRects(m, width: width, height: height, headerRows: head)
        L.detailHistory = detailHistoryRect(m, width: width, height: height, headerRows: head, panes: L.panes)
        L.tabs = tabSpans(m, width: width).map { TabSpan(tab: $0.tab, x: $0.x, width: $0.width) }
        if m.isComparing {
            let c = compareLayout(m, width: width, height: height, headerRows: head)
            L.compare = c
            L.listRows = max(1, c.list.height - 1)
            L.titles = compareTitleSpans(m, width: width)
            L.compareDetailNeeds = compareDetailNeeds(m, width: width)
            L.compareExpandedRows =
                compareLayout(m, width: width, height: height, headerRows: head, expanded: true).detail.height
        } else {
            L.listRows = max(1, L.panes.list.height - 1)
            L.titles = titleSpans(width: width)
            if let id = m.selected {
                let rect = L.detailHistory
                let doc = m.panes.detailMemo.doc(m.sim, id, width: rect.width, g: .unicode)
                L.detailDoc = DetailExtent(
                    id: id, lines: doc.lines.count, start: detailTop(doc, rows: rect.height, scroll: 0))
            }
        }
        // Too small, the screen shows only a notice: a page is one row.
        if width < minWidth || height < minHeight { L.listRows = 1 }
        L.timelineScale = timelineScaleIndex(m, width: width, rows: L.listRows)
        return L
    }
}
