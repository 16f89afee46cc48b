// fuzz-modules: OutboxUI
// fuzz-seeds: themes/*.theme
//
// Fuzz target `theme`: any bytes as a `.theme` file (`outbox --theme FILE`),
// parsed as the live screen parses it; a theme that parses is asked for the
// style of every role, as the terminal does when it maps roles to colors. Any
// error must name the file and a line of it.
import OutboxUI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch Theme.parse(text, name: "fuzz", file: "fuzz.theme") {
    case .success(let theme):
        var bold = 0
        for role in Role.allCases where theme.style(role).bold { bold += 1 }
        if theme.isMonochrome && bold < 0 { fatalError("unreachable") }
    case .failure(let e):
        // The line named is one of the file's (1 for an empty file). Lines end in
        // LF or CRLF; "\r\n" is one Character, so it is a separator of its own.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).count
        if e.file != "fuzz.theme" || e.line < 1 || e.line > max(lines, 1) {
            fatalError("a theme error names no line of the file: \(e)")
        }
    }
    return 0
}
