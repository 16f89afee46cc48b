extension SafeText {
    /// The longest run of non-blank characters a line for people shows whole;
    /// a longer word (a 1 MB name, say) is cut with a count of what is left out.
    public static let maxWord = 200

    /// A line for people (the text timeline, an error message): every scalar that
    /// needs it escaped (`escape(_:)`), and each word longer than `maxWord` cut to
    /// `maxWord` scalars followed by `…[+N chars]`. A line with nothing to escape or
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
            out.append(contentsOf: escaped(String(word), max: maxWord).unicodeScalars)
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
