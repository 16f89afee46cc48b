import ArgumentParser
import Dispatch
import OutboxCore
import OutboxFoundation

/// Finds profiles for the command line: a built-in by name, a profile file by
/// path (`./acme.profile`, relative to the scenario file that names it or to
/// the current directory on the command line), or a user's profile by name from
/// the user folder (`$XDG_CONFIG_HOME/outbox/profiles/NAME.profile`, else
/// `~/.config/outbox/profiles/NAME.profile`). docs/profiles.md.
enum ProfileLoader {
    /// The most bytes a profile file may hold.
    static let maxFileBytes = 1 << 20

    /// The user folder: under XDG_CONFIG_HOME when it is an absolute path, else
    /// under the home folder (`Platform.homeFolder`: an absolute HOME, else the
    /// user database's, as for the state directory; a relative one would move
    /// with the working folder); nil when there is none.
    static var userFolder: String? {
        let env = ProcessInfo.processInfo.environment
        if let x = env["XDG_CONFIG_HOME"], x.hasPrefix("/") { return x + "/outbox/profiles" }
        return Platform.homeFolder().map { $0 + "/.config/outbox/profiles" }
    }

    /// The names of the profiles in the user folder that can be used by name, sorted.
    static var userNames: [String] { userFiles.usable }

    /// What a shell's Tab offers for a profile (`--profile`, `profiles`,
    /// `state --profile`): the built-ins' names, then the user folder's usable
    /// ones (`userNames`), read when Tab is pressed, so a profile saved a
    /// moment ago is offered. With `list` (`--compare`, `compare --profiles`:
    /// `P,P,...`) the word's last name is completed after the ones before it
    /// (`ios,an` gives `ios,android`), a name already in the list left out.
    /// Only the names that start with `word`'s last name are given.
    static func completions(for word: String, list: Bool = false) -> [String] {
        var head = "", last = Substring(word)
        var taken: Set<Substring> = []
        if list, let comma = word.lastIndex(of: ",") {
            head = String(word[...comma])
            last = word[word.index(after: comma)...]
            taken = Set(word[..<comma].split(separator: ","))
        }
        let names = Builtins.all.map(\.rawValue) + userNames
        return names.filter { $0.hasPrefix(last) && !taken.contains(Substring($0)) }.map { head + $0 }
    }

    /// `completions(for:list:)` as the parser's custom completion: it is given
    /// the words, the index of the one completed, and that word up to the cursor.
    static func completion(list: Bool = false) -> CompletionKind {
        .custom { _, _, prefix in completions(for: prefix, list: list) }
    }

    /// The `.profile` files of the user folder by what their names allow, each
    /// list sorted: `usable` by name; `misnamed`, whose name is not a profile's
    /// name (`UPPER.profile`), so no word finds them; `shadowed`, named like a
    /// built-in, which always comes first (issue 22: these were listed as
    /// `unknown profile UPPER`, or passed over without a word).
    static var userFiles: (usable: [String], misnamed: [String], shadowed: [String]) {
        guard let dir = userFolder, let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            return ([], [], [])
        }
        let stems = files.filter { $0.hasSuffix(".profile") }.map { String($0.dropLast(".profile".count)) }.sorted()
        let named = stems.filter(Profile.isName)
        return (
            named.filter { Builtins.named($0) == nil }, stems.filter { !Profile.isName($0) },
            named.filter { Builtins.named($0) != nil }
        )
    }

    /// The most user profiles an unknown-profile message lists by name.
    static let listedUserNames = 10

    /// The user profiles as a message lists them: the first `listedUserNames`,
    /// then how many more (a folder of 3,000 files made a 20 KB line).
    static func listed(_ names: [String]) -> String {
        let shown = names.prefix(listedUserNames).map { SafeText.escaped($0, max: 60) }
        let rest = names.count - shown.count
        return shown.joined(separator: ", ") + (rest > 0 ? " (and \(rest) more: `outbox profiles` lists them)" : "")
    }

    /// Whether a word names a file rather than a profile by name.
    static func isPath(_ word: String) -> Bool { word.contains("/") || word.hasSuffix(".profile") }

    /// A resolver for words read in a file in `directory` (nil: the current
    /// directory). `noting` keeps the path of every profile file it reads.
    static func resolver(relativeTo directory: String? = nil, noting: ReadPaths? = nil) -> ProfileResolver {
        ProfileResolver { word in resolve(word, relativeTo: directory, noting: noting) }
    }

    /// The profile files a resolver read or looked for (`outbox run --watch`
    /// watches them beside the scenarios), each with its stamp from just before
    /// its first read: a save while the run plays differs from it, so the watch
    /// plays again (a stamp taken after the run would be of the saved file).
    final class ReadPaths: @unchecked Sendable {
        private let queue = DispatchQueue(label: "outbox.profile.paths")
        private var kept: [String] = []
        private var stamps: [String: Platform.FileStamp?] = [:]
        var paths: [String] { queue.sync { kept } }
        /// The stamp `path` had when it was first read (nil: nothing was there).
        func stamp(_ path: String) -> Platform.FileStamp? { queue.sync { stamps[path] ?? nil } }
        func add(_ path: String) {
            queue.sync {
                guard !kept.contains(path) else { return }
                kept.append(path)
                stamps[path] = Platform.stamp(path)
            }
        }
    }

    /// A path made absolute (from the working folder) and standardized: how a
    /// profile file is named in recordings, and the recording's own folder.
    /// Its real path (links followed, as the file read is the one named), else
    /// `.` and `..` taken by name.
    static func absolute(_ path: String) -> String {
        let written = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return Platform.realPath(written) ?? standardized(written)
    }

    /// The directory part of a file's path, for resolving paths written in it.
    static func directory(of file: String) -> String? {
        guard let slash = file.lastIndex(of: "/") else { return nil }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    static func resolve(_ word: String, relativeTo directory: String?, noting: ReadPaths? = nil) -> Result<
        Profile, Problem
    > {
        if let p = Builtins.named(word) { return .success(p) }
        if isPath(word) {
            var path = word
            var looked: String?
            if word.hasPrefix("~/") {
                // The home folder as the user folder and the state directory find it.
                guard let home = Platform.homeFolder() else {
                    let h = ProcessInfo.processInfo.environment["HOME"]
                    return .failure(
                        Problem(
                            "\(SafeText.escaped(word, max: 200)): cannot read the profile file: no home folder for `~/` (HOME is "
                                + (h.map {
                                    $0.isEmpty ? "empty" : "`\(SafeText.escaped($0, max: 100))`, not an absolute path"
                                }
                                    ?? "not set")
                                + ", and the user database gives none); expected an absolute HOME, or the profile's full path"
                        ))
                }
                path = home + word.dropFirst()
                looked = path
            } else if !word.hasPrefix("/"), let dir = directory {
                path = dir + "/" + word
            }
            noting?.add(path)
            return load(path, shown: word, expectedName: nil, looked: looked)
        }
        if Profile.isName(word), let dir = userFolder {
            let path = dir + "/" + word + ".profile"
            if Platform.exists(path) {
                noting?.add(path)
                return load(path, shown: path, expectedName: word)
            }
        }
        let users = userNames
        let more = users.isEmpty ? "" : "; in \(userFolder!): " + listed(users)
        return .failure(
            Problem(
                "unknown profile `\(SafeText.escaped(word, max: 60))`, expected "
                    + ProfileResolver.builtinNames(", ", last: " or ") + more
                    + ", or a profile file (a path ending .profile)"
                    + Suggest.hint(word, among: Builtins.all.map(\.name) + users)))
    }

    /// An absolute path without `.` and `..` parts, repeated or trailing slashes:
    /// `/a/./b//../c/` is `/a/c`, `..` at the root stays at the root. By the
    /// names alone: a profile's path is the file's real path (symbolic links
    /// followed, as NSString's `standardizingPath` did), and this only when the
    /// file went away between reading it and asking.
    static func standardized(_ absolute: String) -> String {
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Reads and parses one profile file. The failure names the file and line.
    /// `looked`: the path it stands for, when `shown` does not say it (`~/x.profile`).
    /// Only a regular file is read: a FIFO, a terminal or a device is refused
    /// at once (`Platform.readFile`), wherever the path was named.
    static func load(_ path: String, shown: String, expectedName: String?, looked: String? = nil) -> Result<
        Profile, Problem
    > {
        let text: String
        switch Platform.readFile(path, limit: maxFileBytes) {
        case .failure(let f):
            let at = looked.map { " " + SafeText.escaped($0, max: 200) } ?? ""
            return .failure(
                Problem("\(SafeText.escaped(shown, max: 200)): cannot read the profile file\(at): \(f.message)"))
        case .success(let bytes):
            guard RunCommand.isUTF8(bytes[...]) else {
                return .failure(Problem("\(SafeText.escaped(shown, max: 200)): the profile file is not UTF-8 text"))
            }
            text = String(decoding: bytes, as: UTF8.self)
        }
        let absolute = Self.absolute(path)
        switch Profile.parse(text, file: SafeText.escaped(shown, max: 200), path: absolute) {
        case .failure(let e):
            let first = e.errors[0].description
            let more = e.errors.count > 1 ? " (and \(e.errors.count - 1) more in the file)" : ""
            return .failure(Problem(first + more))
        case .success(let p):
            if let b = Builtins.named(p.name), b.spec.source != text {
                return .failure(
                    Problem(
                        "\(SafeText.escaped(shown, max: 200)):\(nameLine(text)): the profile is named `\(p.name)`, a built-in's name; "
                            + "expected another name (devices and scenario files tell profiles by name)"))
            }
            if let expectedName, p.name != expectedName {
                return .failure(
                    Problem(
                        "\(SafeText.escaped(shown, max: 200)):\(nameLine(text)): the file is found as `\(expectedName)` but names itself `\(p.name)`; "
                            + "expected `profile \(expectedName)`"))
            }
            return .success(p)
        }
    }

    /// A tab, a space of Unicode's Zs or U+200B: what Foundation's `.whitespaces` trims
    /// (spelled out: U+200B is not Zs, so the scalar properties would miss it).
    static func isBlank(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// The line of a profile file's `profile` statement (1 when not found).
    static func nameLine(_ text: String) -> Int {
        var n = 0
        for line in TextInput.droppingBOM(text).split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            if line.drop(while: { $0.unicodeScalars.allSatisfy(isBlank) }).hasPrefix("profile ") { return n }
        }
        return 1
    }
}
