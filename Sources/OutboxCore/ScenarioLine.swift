/// One line of a scenario file as its statements read it, whichever lexer split
/// it: `ByteLexer` (a line of plain ASCII, nearly all) or `LineLexer` (a line with
/// a byte beyond ASCII). Its words are the parser's `lexed`, in one form for both
/// (`ByteLexer.hold`), so an `at` or `expect` line is read by the same code either
/// way (`ScenarioParser.read`), without a `String` for the words it does not need.
struct ScenarioLine {
    /// Its number, from 1.
    let number: Int
    /// Its code: the line without its comment, trimmed, as UTF-8.
    let code: UnsafeBufferPointer<UInt8>
    /// Where it starts in the file, so a range of its words is a key of the
    /// parser's tail tables (`LineTailTable`); nil for a line `LineLexer` split,
    /// whose words have no place in the file's bytes (they are not cached).
    let start: Int?

    /// The code as a `String`, for what keeps the line's text (a skipped line, a message).
    var text: String { String(decoding: code, as: UTF8.self) }
}
