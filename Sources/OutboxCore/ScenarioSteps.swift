extension Scenario {
    /// A scenario's steps, kept small: a time, a line number and a 4-byte index
    /// per step (20 bytes), and each distinct action or check once, however many
    /// lines say it. Only checks keep their line's text (their results print it);
    /// an action line's text is not kept. A 10^6-line file holds ~20 MB here
    /// instead of ~250 MB as one `Step` with its own strings a line
    /// (docs/reliability.md, "Big inputs").
    public struct Steps: RandomAccessCollection, Sendable {
        var times: [Millis] = []
        var lines: [Int] = []
        /// An action's index in `actions`, or `~k` for the k-th check line (`checkOf`, `textEnds`).
        var what: [Int32] = []
        var actions: [Action] = []
        var checks: [Check] = []
        /// Per check line: its check's index in `checks`, and where its text ends in `textBytes`.
        var checkOf: [Int32] = []
        var textEnds: [Int] = []
        var textBytes: [UInt8] = []

        public var startIndex: Int { 0 }
        public var endIndex: Int { times.count }

        public subscript(i: Int) -> Step {
            let w = what[i]
            if w >= 0 { return Step(line: lines[i], time: times[i], content: .action(actions[Int(w)]), text: "") }
            let k = Int(~w)
            return Step(line: lines[i], time: times[i], content: .check(checks[Int(checkOf[k])]), text: checkText(k))
        }

        /// The time of step `i`, without building the step.
        @inline(__always)
        public func time(at i: Int) -> Millis { times[i] }

        /// The text of the k-th check line as written, without its comment.
        func checkText(_ k: Int) -> String {
            let start = k == 0 ? 0 : textEnds[k - 1]
            return textBytes[start..<textEnds[k]].withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
        }

        /// Every distinct `expect log` text, in the order first written.
        public var logTexts: [String] {
            var seen = Set<String>()
            var out: [String] = []
            for c in checks {
                if case .log(let t) = c, seen.insert(t).inserted { out.append(t) }
            }
            return out
        }

        mutating func append(line: Int, time: Millis, action: Int32) {
            times.append(time)
            lines.append(line)
            what.append(action)
        }

        mutating func append(line: Int, time: Millis, check: Int32, text: UnsafeBufferPointer<UInt8>) {
            times.append(time)
            lines.append(line)
            what.append(~Int32(checkOf.count))
            checkOf.append(check)
            textBytes.append(contentsOf: text)
            textEnds.append(textBytes.count)
        }

        mutating func add(_ a: Action) -> Int32 {
            actions.append(a)
            return Int32(actions.count - 1)
        }

        mutating func add(_ c: Check) -> Int32 {
            checks.append(c)
            return Int32(checks.count - 1)
        }

        /// Puts the steps in time order, file order among equal times (ORDER).
        /// Files are nearly always written in time order: then nothing moves.
        mutating func sortByTime() {
            var sorted = true
            for i in times.indices.dropFirst() where times[i] < times[i - 1] {
                sorted = false
                break
            }
            if sorted { return }
            var order = [Int32](0..<Int32(times.count))
            order.sort { a, b in
                let ta = times[Int(a)], tb = times[Int(b)]
                return ta != tb ? ta < tb : a < b
            }
            times = order.map { times[Int($0)] }
            lines = order.map { lines[Int($0)] }
            what = order.map { what[Int($0)] }
        }
    }
}

/// `LineLexer` on bytes, for the lines of a scenario file that are plain ASCII
/// (nearly all): the same words and the same code, without a `String` or a
/// `Character` per byte. A line with any other byte goes to `LineLexer`, whose
/// `Character`s are grapheme clusters (a space followed by a combining mark is
/// not a space there); on ASCII every byte is its own cluster, so the two agree.
struct ByteLexer {
    /// The words' bytes, unescaped, one after another.
    var bytes: [UInt8] = []
    /// Where each word ends in `bytes`.
    var ends: [Int] = []
    /// Where each word starts in the line (its first byte or its opening quote).
    var starts: [Int] = []
    /// The code (the line before its comment, trimmed) as a range of the line.
    var code: Range<Int> = 0..<0

    enum Outcome { case words, unterminatedQuote, notASCII }

    var count: Int { ends.count }

    /// Reads a line (no `\n` in it).
    mutating func lex(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        var inWord = false, quoted = false, escape = false
        var codeEnd = line.count
        var i = 0
        while i < line.count {
            let ch = line[i]
            if ch >= 0x80 { return .notASCII }
            if quoted {
                if escape {
                    escape = false
                    // `\t`, `\x1b`, `\u{9b}`, ...: see `QuotedEscape`.
                    if let (scalar, used) = QuotedEscape.decode(
                        UInt32(ch),
                        next: { k in
                            i + 1 + k < line.count ? UInt32(line[i + 1 + k]) : nil
                        })
                    {
                        bytes.append(contentsOf: String(scalar).utf8)
                        i += used
                    } else {
                        bytes.append(ch)
                    }
                } else if ch == UInt8(ascii: "\\") {
                    escape = true
                } else if ch == UInt8(ascii: "\"") {
                    quoted = false
                } else {
                    bytes.append(ch)
                }
                i += 1
                continue
            }
            if ch == UInt8(ascii: "#") {
                codeEnd = i
                // The comment is not read, but a byte beyond ASCII there still
                // sends the line to `LineLexer`, so both always see the same line.
                var j = i + 1
                while j < line.count {
                    if line[j] >= 0x80 { return .notASCII }
                    j += 1
                }
                break
            }
            if ch == UInt8(ascii: " ") || ch == UInt8(ascii: "\t") || ch == UInt8(ascii: "\r") {
                if inWord {
                    ends.append(bytes.count)
                    inWord = false
                }
            } else {
                if !inWord {
                    starts.append(i)
                    inWord = true
                }
                if ch == UInt8(ascii: "\"") { quoted = true } else { bytes.append(ch) }
            }
            i += 1
        }
        if quoted { return .unterminatedQuote }
        if inWord { ends.append(bytes.count) }
        var lo = 0, hi = codeEnd
        while hi > lo,
            line[hi - 1] == UInt8(ascii: " ") || line[hi - 1] == UInt8(ascii: "\t")
                || line[hi - 1] == UInt8(ascii: "\r")
        {
            hi -= 1
        }
        while lo < hi, line[lo] == UInt8(ascii: " ") || line[lo] == UInt8(ascii: "\t") { lo += 1 }
        code = lo..<hi
        return .words
    }

    /// Whether word `k` is exactly `s` (ASCII).
    func word(_ k: Int, is s: StaticString) -> Bool {
        let start = k == 0 ? 0 : ends[k - 1]
        guard ends[k] - start == s.utf8CodeUnitCount else { return false }
        let p = s.utf8Start
        for j in 0..<s.utf8CodeUnitCount where bytes[start + j] != p[j] { return false }
        return true
    }

    func word(_ k: Int) -> String {
        let start = k == 0 ? 0 : ends[k - 1]
        return bytes[start..<ends[k]].withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }

    func words(from k: Int = 0) -> [String] { (k..<count).map(word) }

    /// Holds the words `LineLexer` split from a line beyond ASCII, so its line is
    /// read as this lexer's are (`ScenarioLine`). They have no place in the line:
    /// `starts` and `code` are empty.
    mutating func hold(_ words: [String]) {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        for w in words {
            bytes.append(contentsOf: w.utf8)
            ends.append(bytes.count)
        }
        code = 0..<0
    }
}

/// Byte strings of the file being parsed (ranges of it) to small numbers: the
/// action or check a line's words after its time made, so a line said again is
/// neither lexed into strings nor parsed again. FNV-1a with open addressing.
/// A file whose lines are nearly all different would only fill it: after 2^16
/// keys with fewer than one hit in four, it takes no more.
struct LineTailTable {
    private var slots = [Int32](repeating: 0, count: 1024)
    private var keys: [(start: Int, count: Int, hash: Int)] = []
    private var values: [Int32] = []
    private var hits = 0

    private static func hash(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for x in b { h = (h ^ UInt64(x)) &* 0x100_0000_01B3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The value kept for `key` (a range of `file`), or nil.
    mutating func find(_ key: Range<Int>, in file: UnsafeBufferPointer<UInt8>) -> Int32? {
        let k = UnsafeBufferPointer(rebasing: file[key])
        let h = LineTailTable.hash(k)
        let mask = slots.count - 1
        var i = h & mask
        while true {
            let v = Int(slots[i])
            if v == 0 { return nil }
            let e = keys[v - 1]
            if e.hash == h && e.count == k.count
                && (k.count == 0 || CorePlatform.equalBytes(file.baseAddress! + e.start, k.baseAddress!, k.count))
            {
                hits += 1
                return values[v - 1]
            }
            i = (i + 1) & mask
        }
    }

    /// Keeps `value` for `key`, which is not in the table yet.
    mutating func add(_ key: Range<Int>, in file: UnsafeBufferPointer<UInt8>, _ value: Int32) {
        if keys.count >= 1 << 16 && hits < keys.count / 4 { return }
        let h = LineTailTable.hash(UnsafeBufferPointer(rebasing: file[key]))
        keys.append((key.lowerBound, key.count, h))
        values.append(value)
        if keys.count * 2 > slots.count {
            slots = [Int32](repeating: 0, count: slots.count * 2)
            for (n, e) in keys.enumerated() { place(e.hash, Int32(n + 1)) }
        } else {
            place(h, Int32(keys.count))
        }
    }

    private mutating func place(_ h: Int, _ v: Int32) {
        let mask = slots.count - 1
        var i = h & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = v
    }
}
