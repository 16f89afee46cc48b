import OutboxCore

extension AppModel {
    /// `z`, `Z` and `f`: the timeline's scale. Zooming starts from the scale the
    /// fit shows now (the last frame's, `Layout.timelineScale`), so the first `z`
    /// or `Z` is one step from what is on screen.
    mutating func runTimeline(_ command: Command) {
        let ladder = TimelineAxis.ladder
        let current = timelineZoom ?? layout.timelineScale
        switch command {
        case .zoomIn:
            timelineZoom = max(0, current - 1)
            if current == 0 { message = ("the timeline is at its finest: 1 col = 100 ms", false) }
        case .zoomOut:
            timelineZoom = min(ladder.count - 1, current + 1)
            if current == ladder.count - 1 { message = ("the timeline is at its widest: 1 col = 1 h", false) }
        case .fitTimeline:
            timelineZoom = nil
            if isComparing {
                message = ("timelines: back to the speed's scale", false)
            } else {
                message = (
                    selected.map { "timeline: fits #\($0)'s whole life" } ?? "timeline: fits the newest moments", false
                )
            }
        default: break
        }
    }
}
