import OutboxCore

extension AppModel {
    /// `z`, `Z` and `f`: the timeline's scale. Zooming starts from the scale the
    /// fit shows now, so the first `z` or `Z` is one step from what is on screen.
    mutating func runTimeline(_ command: Command) {
        let ladder = TimelineAxis.ladder
        let current = timelineZoom ?? AppView.timelineScaleIndex(self, width: screenWidth)
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

    /// Tells the model the screen's width, for the timeline's scale (the loop calls it with `setListHeight`).
    public mutating func setScreenWidth(_ w: Int) { screenWidth = w }
}
