extension SafeText {
    /// The marks that close a quoted word or end a clause, kept after a cut.
    static let closers: Set<Unicode.Scalar> = ["`", "'", "\"", ")", "]", "}", ",", ";", ":", ".", "?", "!"]

    /// The longest run of non-blank characters a line for people shows whole;
    /// a longer word (a 1 MB name, say) is cut with a count of what is left out.
    public static let maxWord = 200

    /// A line for people (the text timeline, an error message): every scalar that
    /// needs it escaped (`escape(_:)`), and each word longer than `maxWord` cut to
    /// `maxWord` scalars followed by `…[+N chars]`. The marks that close a quoted
    /// word (`` `x…`, ``, `"x…"`, `(x…);`) stay after the cut, so the quote still
    /// ends: `` `1s,1s,…[+2804 chars]` `` (issue 22). A line with nothing to escape or
    /// cut comes back as it is.
    public static func line(_ s: String, maxWord: Int = SafeText.maxWord) -> String {
        // Most lines need nothing: find out without building a new string.
        var run = 0
        var clean = true
        for u in s.unicodeScalars {
            if needsEscape(u) { clean = false; break }
            if u == " " {
                run = 0
            } else {
                run += 1
                if run > maxWord { clean = false; break }
            }
        }
        if clean { return s }

        var out = String.UnicodeScalarView()
        var word = String.UnicodeScalarView()
        func flushWord() {
            guard !word.isEmpty else { return }
            // A word may be cut when it is long or its escapes make it so: its
            // closing marks (up to four) are set aside and put back after the body.
            let cut = word.count > maxWord || word.contains(where: needsEscape)
            var tail = 0
            if cut {
                var i = word.endIndex
                while tail < 4, i > word.startIndex {
                    let before = word.index(before: i)
                    guard SafeText.closers.contains(word[before]) else { break }
                    i = before
                    tail += 1
                }
            }
            let body = String(String.UnicodeScalarView(word.dropLast(tail)))
            let shown = escaped(body, max: maxWord)
            out.append(contentsOf: shown.unicodeScalars)
            if tail > 0 { out.append(contentsOf: word.suffix(tail)) }
            word.removeAll(keepingCapacity: true)
        }
        for u in s.unicodeScalars {
            if u == " " {
                flushWord()
                out.append(u)
            } else {
                word.append(u)
            }
        }
        flushWord()
        return String(out)
    }
}
