/// Splits a line into words: spaces separate, double quotes group, `#` outside
/// quotes starts a comment, `\"` and `\\` escape inside quotes.
public enum LineLexer {
    public static func words(_ line: String) -> Result<(words: [String], code: String), Problem> {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escape = false
        var code = ""
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let ch = chars[i]
            i += 1
            if quoted {
                code.append(ch)
                if escape {
                    escape = false
                    // `\t`, `\x1b`, `\u{9b}`, ...: see `QuotedEscape`.
                    if let (scalar, used) = QuotedEscape.decode(
                        ch.unicodeScalars.count == 1 ? ch.unicodeScalars.first!.value : 0,
                        next: { k in
                            guard i + k < chars.count, chars[i + k].unicodeScalars.count == 1
                            else { return nil }
                            return chars[i + k].unicodeScalars.first!.value
                        })
                    {
                        for k in 0..<used { code.append(chars[i + k]) }
                        i += used
                        current.unicodeScalars.append(scalar)
                    } else {
                        current.append(ch)
                    }
                } else if ch == "\\" {
                    escape = true
                } else if ch == "\"" {
                    quoted = false
                } else {
                    current.append(ch)
                }
                continue
            }
            if ch == "#" { break }
            code.append(ch)
            if ch == " " || ch == "\t" || ch == "\r" {
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            } else if ch == "\"" {
                quoted = true
                inWord = true
            } else {
                current.append(ch)
                inWord = true
            }
        }
        if quoted { return .failure(Problem("unterminated quote, expected a closing \"")) }
        if inWord { words.append(current) }
        var trimmed = Substring(code)
        while let l = trimmed.last, l == " " || l == "\t" || l == "\r" { trimmed.removeLast() }
        while let f = trimmed.first, f == " " || f == "\t" { trimmed.removeFirst() }
        return .success((words, String(trimmed)))
    }
}
