/// "did you mean …?" for a mistyped word: the known words closest to it by
/// edit distance (issue 15). Every reader that says "unknown X `word`"
/// appends `Suggest.hint(word, among: known)` to its message.
public enum Suggest {
    /// The most edits a suggestion may be away from the word.
    public static let maxDistance = 2
    /// The most words one hint names.
    public static let maxWords = 3

    /// The edits (insert, delete, replace, swap two neighbours) that turn `a`
    /// into `b`, ignoring case: the optimal-string-alignment form of
    /// Damerau-Levenshtein. Stops early (returning `limit + 1`) once the
    /// answer is sure to exceed `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int = Int.max) -> Int {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        if abs(x.count - y.count) > limit { return limit == Int.max ? limit : limit + 1 }
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        // Three rows of the table: two back (for a swap), one back, this one.
        var before = [Int](repeating: 0, count: y.count + 1)
        var last = Array(0...y.count)
        var row = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            row[0] = i
            var best = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var d = min(last[j] + 1, row[j - 1] + 1, last[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d = min(d, before[j - 2] + 1) }
                row[j] = d
                best = min(best, d)
            }
            if limit != Int.max && best > limit { return limit + 1 }
            (before, last, row) = (last, row, before)
        }
        return last[y.count]
    }

    /// The known words close enough to `word` to be what was meant: at most
    /// `maxDistance` edits and fewer than half the word's length (so a short
    /// word is not "corrected" into an unrelated one), the nearest first, only
    /// those at the smallest distance, at most `maxWords`, in `known`'s order.
    /// The word itself is never suggested.
    public static func closest(_ word: String, among known: [String]) -> [String] {
        let length = word.count
        // A word of more than a few dozen characters is no typo of a keyword.
        guard length > 0, length <= 64 else { return [] }
        var best = Int.max
        var out: [String] = []
        for k in known where k != word && !out.contains(k) {
            let d = distance(word, k, limit: maxDistance)
            guard d <= maxDistance, 2 * d < length else { continue }
            if d < best {
                best = d
                out = [k]
            } else if d == best {
                out.append(k)
            }
        }
        return Array(out.prefix(maxWords))
    }

    /// `; did you mean `a`?` (or `a` or `b`, `a`, `b` or `c`), to append to a
    /// message that named `word`; "" when nothing known is close.
    public static func hint(_ word: String, among known: [String]) -> String {
        let words = closest(word, among: known).map { "`" + SafeText.escaped($0, max: 60) + "`" }
        guard let last = words.last else { return "" }
        let list = words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
        return "; did you mean \(list)?"
    }

    /// A `server` answer mistyped with letters for digits (`5O3`, `4l3`): the
    /// status it reads as, or nil.
    public static func status(_ word: String) -> String? {
        guard word.count == 3 else { return nil }
        let digits = String(
            word.map { c -> Character in
                switch c {
                case "O", "o": return "0"
                case "l", "I", "i": return "1"
                case "S", "s": return "5"
                case "B": return "8"
                default: return c
                }
            })
        guard digits != word, let n = Int(digits), (100...599).contains(n) else { return nil }
        return digits
    }
}
