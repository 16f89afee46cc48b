/// `outbox run --update`: a failing `expect` line's value rewritten to what
/// the run found (a snapshot update). Only the value, the check's last word,
/// changes; every other byte of the file stays as it was.
public enum ExpectUpdate {
    /// One line to rewrite: its new last word.
    public struct Change: Equatable, Sendable {
        public let line: Int
        public let value: String
        public init(line: Int, value: String) {
            self.line = line
            self.value = value
        }
    }

    /// `text` with the last word of each changed line's code (before a comment)
    /// replaced by its new value; nil for a line, if the line has no word
    /// (not an expect line: a caller's mistake). Line ends (`\n`, `\r\n`),
    /// spacing, comments and the other lines are kept byte for byte.
    public static func apply(_ changes: [Change], to text: String) -> String? {
        let wanted = Dictionary(changes.map { ($0.line, $0.value) }, uniquingKeysWith: { _, b in b })
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        let bytes = Array(text.utf8)
        var lineNo = 0
        var start = 0
        while start <= bytes.count {
            lineNo += 1
            var end = start
            while end < bytes.count && bytes[end] != 10 { end += 1 }
            let line = bytes[start..<end]
            if let value = wanted[lineNo] {
                guard let r = lastWord(line) else { return nil }
                out += bytes[start..<r.lowerBound]
                out += Array(value.utf8)
                out += bytes[r.upperBound..<end]
            } else {
                out += line
            }
            if end < bytes.count { out.append(10) }
            start = end + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where the last word of a line's code is, quotes included (as `LineLexer`
    /// reads it: spaces, tabs and `\r` separate, `#` outside quotes starts a comment).
    public static func lastWord(_ line: ArraySlice<UInt8>) -> Range<Int>? {
        var last: Range<Int>?
        var wordStart: Int?
        var quoted = false, escape = false
        var i = line.startIndex
        loop: while i < line.endIndex {
            let b = line[i]
            if quoted {
                if escape {
                    escape = false
                } else if b == UInt8(ascii: "\\") {
                    escape = true
                } else if b == UInt8(ascii: "\"") {
                    quoted = false
                }
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: "#"):
                break loop
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                if let s = wordStart { last = s..<i }
                wordStart = nil
            default:
                if wordStart == nil { wordStart = i }
                if b == UInt8(ascii: "\"") { quoted = true }
            }
            i += 1
        }
        if let s = wordStart { last = s..<i }
        return last
    }
}

extension Simulation {
    /// The value a failing check would have held with (its last word), taken
    /// from the state now; a failure says why there is none.
    public func updatedValue(_ check: Check) -> Result<String, Problem> {
        /// The one value every request of `name` has, or why not.
        func one(_ name: String, _ what: String, _ value: (Request) -> String) -> Result<String, Problem> {
            let ids = requests(named: name)
            guard let first = ids.first else {
                return .failure(Problem("no request is named '\(name)', so there is no \(what) to take"))
            }
            let v = value(request(first))
            if let other = ids.first(where: { value(request($0)) != v }) {
                return .failure(
                    Problem(
                        "the requests named '\(name)' differ (#\(first) \(v), #\(other) \(value(request(other)))), "
                            + "expected one \(what) for all: check each with `request ID` (E pins them so)"))
            }
            return .success(v)
        }
        func byID(_ id: Int32) -> Result<Request, Problem> {
            guard id >= 1, Int(id) <= requests.count else {
                return .failure(Problem("no request #\(id) was made (\(requests.count) made)"))
            }
            return .success(request(id))
        }
        func reason(_ r: Request) -> Result<String, Problem> {
            guard r.state == .dropped, let why = r.reason else {
                return .failure(
                    Problem(
                        "#\(r.id) is \(r.state.word), not dropped: a `dropped` check takes only a reason, expected the check edited by hand"
                    ))
            }
            return .success(why.word)
        }
        switch check {
        case .state(let name, _):
            return one(name, "state") { $0.state.word }
        case .dropped(let name, _):
            let ids = requests(named: name)
            if let live = ids.first(where: { request($0).state != .dropped }) {
                return reason(request(live))
            }
            return one(name, "drop reason") { $0.reason?.word ?? "" }
        case .attempts(let name, _):
            return one(name, "attempt count") { String($0.attempts) }
        case .completion(let name, _):
            return one(name, "completion") { $0.completion.word }
        case .saved:
            return .success(String(savedCount))
        case .received(let name, _):
            return .success(String(nameID(name).map { backend.received(nameID: $0) } ?? 0))
        case .counted(let name, _):
            return .success(String(nameID(name).map { backend.counted(nameID: $0) } ?? 0))
        case .revenue(let currency, _):
            return .success((nameID(currency).flatMap { backend.revenue[$0] } ?? AmountSum()).text)
        case .log:
            return .failure(
                Problem("a log check names a text, not a value the run can give, expected the text edited by hand"))
        case .requestState(let id, _):
            return byID(id).map { $0.state.word }
        case .requestDropped(let id, _):
            return byID(id).flatMap(reason)
        case .requestAttempts(let id, _):
            return byID(id).map { String($0.attempts) }
        }
    }
}
