/// `outbox run --format junit`: the checks of one or more scenario files as
/// JUnit XML, the report CI servers read (docs/scenarios.md, "JUnit").
///
/// A pure renderer: the wall times are measured by the caller and handed in,
/// so the same suites always give the same bytes.
public enum JUnitReport {
    /// One `expect` line's result.
    public struct Case: Sendable, Equatable {
        public let line: Int
        /// The line as written, without its comment.
        public let text: String
        public let ok: Bool
        /// What was found instead, when it failed.
        public let found: String
        /// The virtual moment it was checked at.
        public let time: Millis
        /// Wall time the run spent reaching this check since the one before it
        /// (or since the file's run started), in microseconds.
        public let wallMicros: Int

        public init(line: Int, text: String, ok: Bool, found: String, time: Millis, wallMicros: Int) {
            self.line = line
            self.text = text
            self.ok = ok
            self.found = found
            self.time = time
            self.wallMicros = wallMicros
        }

        public init(_ r: CheckResult, wallMicros: Int) {
            self.init(line: r.line, text: r.text, ok: r.ok, found: r.found, time: r.time, wallMicros: wallMicros)
        }
    }

    /// One scenario file's run.
    public struct Suite: Sendable, Equatable {
        public let file: String
        /// The profile's name as the file gives it (`ios`, `./acme.profile`).
        public let profile: String
        public let cases: [Case]
        /// The virtual moment the run ended.
        public let ended: Millis
        public let transitions: Int
        /// Wall time of the whole run, in microseconds.
        public let wallMicros: Int

        public init(file: String, profile: String, cases: [Case], ended: Millis, transitions: Int, wallMicros: Int) {
            self.file = file
            self.profile = profile
            self.cases = cases
            self.ended = ended
            self.transitions = transitions
            self.wallMicros = wallMicros
        }

        public var failures: Int { cases.filter { !$0.ok }.count }
    }

    /// The whole document: a `<testsuites>` holding one `<testsuite>` per file.
    public static func render(_ suites: [Suite]) -> String {
        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.failures }
        let wall = suites.reduce(0) { $0 + $1.wallMicros }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"outbox run\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\""
        out += " time=\"\(seconds(wall))\">\n"
        for s in suites { out += suite(s) }
        out += "</testsuites>\n"
        return out
    }

    static func suite(_ s: Suite) -> String {
        let file = attribute(s.file)
        var out = "  <testsuite name=\"\(file)\" tests=\"\(s.cases.count)\" failures=\"\(s.failures)\""
        out += " errors=\"0\" skipped=\"0\" time=\"\(seconds(s.wallMicros))\">\n"
        out += "    <properties>\n"
        out += "      <property name=\"profile\" value=\"\(attribute(s.profile))\"/>\n"
        out += "      <property name=\"virtual-time\" value=\"\(VirtualTime.seconds(s.ended))\"/>\n"
        out += "      <property name=\"transitions\" value=\"\(s.transitions)\"/>\n"
        out += "    </properties>\n"
        for c in s.cases {
            let name = attribute(s.file + ":" + String(c.line) + ": " + c.text)
            out += "    <testcase name=\"\(name)\" classname=\"\(file)\" time=\"\(seconds(c.wallMicros))\">\n"
            if !c.ok {
                out += "      <failure message=\"found \(attribute(c.found))\" type=\"check failed\">"
                out += text(s.file + ":" + String(c.line) + ": check failed: " + c.text + ": found " + c.found)
                out += "</failure>\n"
            }
            out += "      <system-out>checked at \(VirtualTime.clock(c.time)) virtual time</system-out>\n"
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n"
        return out
    }

    /// Microseconds as seconds with six decimals: `0.000250`, `1.500000`.
    static func seconds(_ micros: Int) -> String {
        let m = max(0, micros)
        var frac = String(m % 1_000_000)
        while frac.count < 6 { frac = "0" + frac }
        return String(m / 1_000_000) + "." + frac
    }

    /// Text for an attribute value in double quotes.
    public static func attribute(_ s: String) -> String { escape(s) }

    /// Text for element content.
    public static func text(_ s: String) -> String { escape(s) }

    /// Text for the report: `SafeText.xml` (controls as visible escapes, markup as entities).
    static func escape(_ s: String) -> String { SafeText.xml(s) }
}
