/// The vocabulary of an SDK: the kinds of request its app makes and the app
/// calls that make them (`call WORD [NAME] makes KIND... [key K [ARG]] "HELP"`).
///
/// The engine knows two kinds of its own: `install` (the consent gate's) and
/// `event` (`track`). Every other kind, and every app call besides launch, quit,
/// track, consent and getinstance, is declared by a `call` line: the seeds'
/// (UserCom's) in `profiles/usercom.calls`, built in and known to every profile
/// (a profile has those its `requests` line names), and a profile's own in its
/// file (it has those at once). The scenario parser, the `:` command line, the
/// key table, completions and messages all read calls and kinds from here.
///
/// Each profile holds its own vocabulary (the built-in one, then its own
/// calls): nothing is registered process-wide, so parsing one profile never
/// changes what another means. The built-in kinds have the same raw values in
/// every profile.

/// A kind of request, as a small number into the profile's vocabulary
/// (`Vocabulary.word(_:)` names it). Kinds 0 and 1 are the engine's own.
public struct RequestKind: Hashable, Sendable, BitwiseCopyable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The consent gate's install (LT-3): made by the engine, not by an app call.
    public static let install = RequestKind(rawValue: 0)
    /// A `track` call's event.
    public static let event = RequestKind(rawValue: 1)

    /// Its bit in a kind mask.
    @inline(__always)
    var bit: UInt64 { 1 << UInt64(rawValue) }
}

/// One app call: its scenario word, whether it takes a name, the requests it
/// makes (in this order, each named for its kind unless the call takes a
/// name), and its default key in the live screen.
public struct AppCall: Sendable, Equatable {
    /// Its place in the vocabulary (a bit in `Profile`'s call mask).
    public let index: UInt8
    /// The scenario word and `:` command (`screen`).
    public let word: String
    /// Whether it takes a name (`screen NAME`): the one request it makes is named so.
    public let takesName: Bool
    /// The kinds of the requests it makes, in order; none for a lifecycle event.
    public let makes: [RequestKind]
    /// Their words (`logout, token-removal, anonymous-ping`).
    public let madeWords: [String]
    /// Its key in the live screen, or nil for none.
    public let key: Unicode.Scalar?
    /// The name the key gives when the call takes one (`home`).
    public let keyName: String?
    /// The key's help line.
    public let help: String

    /// What a profile lacking it lacks, in messages: `screen requests` (a call
    /// making one kind of its own word), else `logout call`, or `background event`
    /// (a call making nothing).
    public var capability: String {
        if makes.isEmpty { return word + " event" }
        return makesOwnKind ? word + " requests" : word + " call"
    }

    /// What a key needs, as the help and docs/keys.md say it: `screen requests`, or the call's word.
    public var need: String { makesOwnKind ? word + " requests" : word }

    /// Makes one request of the kind named as the call.
    var makesOwnKind: Bool { madeWords == [word] }
}

/// The kinds and calls one profile knows (the built-in vocabulary, then the profile's own `call` lines).
public struct Vocabulary: Sendable, Equatable {
    /// Kind words by raw value.
    public private(set) var kinds: [String]
    /// Calls in declaration order.
    public private(set) var calls: [AppCall]

    /// The engine's own kinds.
    static let engineKinds = ["install", "event"]
    /// The most kinds and calls one vocabulary holds (a bit each in a mask).
    static let maxKinds = 64
    static let maxCalls = 64
    /// Words a call may not take: the scenario's own verbs and statements.
    static let reserved: Set<String> = [
        "launch", "quit", "getinstance", "consent", "track", "network", "server", "set", "profile", "compare", "saved",
        "device", "at", "expect", "none",
    ]

    init() {
        kinds = Vocabulary.engineKinds
        calls = []
    }

    /// The built-in vocabulary: `profiles/usercom.calls`.
    public static let builtin: Vocabulary = {
        var v = Vocabulary()
        var n = 0
        for line in Builtins.callsSource.split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            guard case .success(let (w, _)) = LineLexer.words(String(line)), !w.isEmpty else { continue }
            if case .failure(let why) = v.declare(w) {
                preconditionFailure("profiles/usercom.calls:\(n): \(why)")
            }
        }
        return v
    }()

    /// A vocabulary of these kinds and no calls (`outbox serve`: the kinds real
    /// SDKs' events carry, for `server ... for kind:K`), at most 64.
    public init(kinds words: [String]) {
        kinds = Array(words.prefix(Vocabulary.maxKinds))
        calls = []
    }

    public func word(_ k: RequestKind) -> String {
        Int(k.rawValue) < kinds.count ? kinds[Int(k.rawValue)] : "kind-\(k.rawValue)"
    }

    public func kind(_ word: String) -> RequestKind? {
        kinds.firstIndex(of: word).map { RequestKind(rawValue: UInt8($0)) }
    }

    /// Every kind, in raw-value order.
    public var allKinds: [RequestKind] { (0..<kinds.count).map { RequestKind(rawValue: UInt8($0)) } }

    public func call(_ word: String) -> AppCall? { calls.first { $0.word == word } }

    /// The call words, in declaration order.
    public var callWords: [String] { calls.map(\.word) }

    static let form = "call WORD [NAME] makes KIND...|nothing [key K [ARG]] \"HELP\""

    /// Reads a `call` line's words and adds the call; says why not.
    mutating func declare(_ w: [String]) -> Result<AppCall, Problem> {
        func bad(_ why: String) -> Result<AppCall, Problem> { .failure(Problem(why)) }
        let expected = "expected `" + Vocabulary.form + "`"
        guard w.count >= 5, w[0] == "call" else { return bad("bad call line, " + expected) }
        let word = w[1]
        if let why = ProfileParser.badName(word) { return bad("bad call word: " + why) }
        if Vocabulary.reserved.contains(word) {
            return bad("`\(word)` is a scenario word of its own, expected a call word that is not one")
        }
        if let old = call(word) {
            return bad("a call `\(old.word)` is already declared, expected each call declared once")
        }
        var i = 2
        let takesName = w[i] == "NAME"
        if takesName { i += 1 }
        guard i < w.count, w[i] == "makes" else { return bad("bad call line, " + expected) }
        i += 1
        var kindWords: [String] = []
        while i < w.count - 1 && w[i] != "key" {
            kindWords.append(w[i])
            i += 1
        }
        if kindWords == ["nothing"] {
            kindWords = []
        } else if kindWords.isEmpty {
            return bad("a call that makes no request, expected `makes KIND...` or `makes nothing`")
        }
        if takesName && kindWords.count != 1 {
            return bad("a call with a NAME makes exactly one request, expected one kind after `makes`")
        }
        var key: Unicode.Scalar?
        var keyName: String?
        if i < w.count - 1 {
            // w[i] == "key"
            let parts = w[(i + 1)..<(w.count - 1)]
            guard parts.count == (takesName ? 2 : 1), let k = parts.first, k.unicodeScalars.count == 1,
                let s = k.unicodeScalars.first, s.isASCII, s.value > 32, s.value < 127
            else {
                return bad(
                    "bad key of call `\(word)`, expected `key K`" + (takesName ? " ARG (the name the key gives)" : "")
                        + " with K one printable ASCII character")
            }
            key = s
            if takesName {
                keyName = parts.last!
                if keyName!.isEmpty { return bad("an empty name for the key of call `\(word)`") }
            }
        }
        let help = w[w.count - 1]
        if help.isEmpty || help == "key" { return bad("a call without its help, expected `" + Vocabulary.form + "`") }
        if let why = ProfileParser.badText(help) { return bad(why) }
        var made: [RequestKind] = []
        for k in kindWords {
            if Vocabulary.engineKinds.contains(k) {
                return bad("`\(k)` is the engine's own kind, expected a kind an app call makes")
            }
            if let why = ProfileParser.badName(k) { return bad("bad kind `\(SafeText.escaped(k, max: 60))`: " + why) }
            if let old = kind(k) {
                made.append(old)
                continue
            }
            guard kinds.count < Vocabulary.maxKinds else {
                return bad("too many request kinds, expected at most \(Vocabulary.maxKinds)")
            }
            kinds.append(k)
            made.append(RequestKind(rawValue: UInt8(kinds.count - 1)))
        }
        guard calls.count < Vocabulary.maxCalls else {
            return bad("too many app calls, expected at most \(Vocabulary.maxCalls)")
        }
        let c = AppCall(
            index: UInt8(calls.count), word: word, takesName: takesName, makes: made, madeWords: kindWords, key: key,
            keyName: keyName,
            help: help)
        calls.append(c)
        return .success(c)
    }

    /// The kinds a call mask's calls make, as a kind mask.
    func kindMask(ofCalls mask: UInt64) -> UInt64 {
        var out: UInt64 = 0
        for c in calls where mask & (1 << UInt64(c.index)) != 0 {
            for k in c.makes { out |= k.bit }
        }
        return out
    }
}

/// `call WORD [NAME] makes KIND... [key K [ARG]] "HELP"` in a profile: a call of
/// its own, which the profile has at once.
enum AppCalls {
    static let statement: Statement = Statement(
        keyword: "call", forms: [Vocabulary.form], file: "Policy/Vocabulary.swift", doc: doc
    ) { p, n, w in
        switch p.d.vocabulary.declare(w) {
        case .failure(let why): p.fail(n, why.message)
        case .success(let c):
            let bit: UInt64 = 1 << UInt64(c.index)
            p.d.ownCalls |= bit
            p.d.calls |= bit
            for k in c.makes { p.d.kinds |= k.bit }
        }
    }
}

extension Simulation {
    /// An app call (`Action.call`): its requests are made in order, each named
    /// for its kind unless the call takes a name. A call making several says so
    /// first (`logout(): sending logout, token-removal, anonymous-ping`); one
    /// making none (a lifecycle event) logs its help.
    mutating func called(_ c: AppCall, name: String?) {
        if c.makes.count > 1 {
            log(.sdk, .call, c.word + "(): sending " + c.madeWords.joined(separator: ", "))
        } else if c.makes.isEmpty {
            log(.sdk, .call, c.word + "(): " + c.help)
        }
        for (k, word) in zip(c.makes, c.madeWords) {
            created(create(k, name: c.takesName ? (name ?? word) : word))
        }
    }
}

extension Simulation {
    /// A kind's word in the profile's vocabulary (`token-removal`).
    @inline(__always)
    public func word(_ kind: RequestKind) -> String { spec.policy.vocabulary.word(kind) }
}

extension AppCalls {
    /// What docs/profiles.md says of the statement (its "Statements" section is made from it).
    static let doc: [StatementDoc] = [
        StatementDoc(
            text: """
                Declares an app call of the profile's own: the scenario action `WORD` (and the
                `:WORD` command), which takes a name when `NAME` is written (then it makes
                exactly one request, named so; otherwise each request is named for its kind).
                `makes` lists the kinds of the requests it makes, in order (a new word declares
                a new kind, which `direct`, `save on failure`, `saved` lines and `server ... for
                kind:KIND` then accept); `makes nothing` is an event of the app that only
                logs `WORD(): HELP` (say `memory-warning`; the background and foreground, which
                the SDK acts on, are the app lifecycle's own actions, `background rule R`
                below). A call that makes
                several requests logs `WORD(): sending K1, K2, ...` first, as logout does.
                `key K` gives it a key in the live screen (`ARG`: the name the key gives, when
                the call takes one); a key a fixed key already holds is left out (`:WORD` still
                works). `HELP` is the key's line in `?` and docs/keys.md. The word may not be a
                scenario verb (`launch`, `track`, `server`, ...), and `install` and `event` are
                the engine's own kinds. At most 64 kinds and 64 calls. Example:

                    call identify NAME makes identify key i alice "identify the user"
                    call memory-warning makes nothing key W "the system warns of low memory"

                A kind or call declared by one profile is known only to it. Comparing it with
                another profile, a line that calls it (or a `server ... for kind:KIND` line
                naming its kind) is skipped on the other column, with a note ("the profile has
                no capture call"), as any line a profile lacks is; a word no profile of the
                story declares is still bad input.
                """)
    ]
}
