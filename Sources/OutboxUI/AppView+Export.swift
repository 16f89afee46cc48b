import OutboxCore

extension AppView {
    /// The export's question on the status line: the path being typed (its end
    /// kept in view when it is long), or whether to replace a file that exists.
    static func exportLine(_ buf: inout ScreenBuffer, _ m: AppModel, y: Int, width: Int) {
        buf.fill(Rect(x: 0, y: y, width: width, height: 1), role: .commandLine)
        switch m.mode {
        case .exportPath(let t):
            let head = "export to: ", tail = "_  (Enter writes, Esc cancels)"
            var path = SafeText.escaped(t, max: 1000)
            let room = max(8, width - head.count - tail.count)
            if path.count > room { path = "..." + String(path.suffix(room - 3)) }
            buf.put(head + path + tail, x: 0, y: y, role: .commandLine)
        case .confirmReplace(let p):
            // The question first: a long path gives way (its end kept), never the keys.
            let head = "file exists; y replaces it, any other key keeps it: "
            var path = SafeText.escaped(p, max: 1000)
            let room = max(8, width - head.count)
            if path.count > room { path = "..." + String(path.suffix(room - 3)) }
            buf.put(head + path, x: 0, y: y, role: .commandLine)
        default: break
        }
    }
}
