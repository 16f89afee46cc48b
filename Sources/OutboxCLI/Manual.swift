import ArgumentParser
import OutboxFoundation

/// The manual page, docs/outbox.1, made from the declared commands (the same
/// declarations as help and completions): `outbox help --man > docs/outbox.1`.
/// A test keeps the checked-in page current.
enum Manual {
    static func page() -> String {
        var out = [
            #".\" Made by `outbox help --man` from the command line's declarations; do not edit."#,
            ".TH OUTBOX 1 \"\" \"outbox \(CLI.version)\" \"User Commands\"",
            ".SH NAME",
            "outbox \\- " + roff(OutboxCommand.configuration.abstract),
            ".SH SYNOPSIS",
            ".nf",
        ]
        out += synopsis(OutboxCommand.configuration.usage!).map(line)
        out += [".fi", ".SH DESCRIPTION"]
        out += prose(OutboxCommand.configuration.discussion)
        out.append(".SH COMMANDS")
        for command in OutboxCommand.commands {
            let c = command.configuration
            let name = c.commandName ?? ""
            out.append(
                ".SS \"" + (command == InteractiveCommand.self ? "outbox, outbox live" : "outbox \(name)") + "\"")
            out.append(roff(c.abstract.prefix(1).uppercased() + c.abstract.dropFirst()) + ".")
            out +=
                [".PP", ".nf"] + synopsis(command.synopsis).map(line) + [".fi"]
            if !c.discussion.isEmpty { out += [".PP"] + prose(c.discussion) }
            out += options(of: command)
        }
        out += [
            ".SH EXIT STATUS",
            "0 when everything held; 1 when a check failed or output could not be written;",
            "2 for bad input (named FILE:LINE) or a bad option (named).",
            ".SH FILES",
            ".TP",
            "\\fI$XDG_STATE_HOME/outbox/PROFILE.sqlite\\fR (else \\fI~/.local/state/outbox\\fR)",
            "the simulated devices (docs/storage.md).",
            ".TP",
            "\\fI$XDG_CONFIG_HOME/outbox/profiles/*.profile\\fR (else \\fI~/.config/outbox/profiles\\fR)",
            "user profiles (docs/profiles.md).",
            ".SH SEE ALSO",
            "The guide, the scenario and profile formats, the keys and the rules: guide.md, scenarios.md,",
            "profiles.md, keys.md and rules.md in \\fI/usr/share/doc/outbox/docs/\\fR, where the Debian package",
            "installs them (\\fIPREFIX/share/doc/outbox/docs/\\fR after \\fBmake install\\fR, \\fIdocs/\\fR in",
            "a checkout of the sources). The \\fIdocs/\\fR and \\fIexamples/\\fR named above are in",
            "\\fI/usr/share/doc/outbox/\\fR.",
        ]
        return out.joined(separator: "\n") + "\n"
    }

    /// A command's arguments and options, each a tagged paragraph, from the
    /// parser's own description of the command (its help dump).
    static func options(of command: ParsableCommand.Type) -> [String] {
        guard let data = OutboxCommand._dumpHelp().data(using: .utf8),
            let dump = try? JSONDecoder().decode(HelpDump.self, from: data),
            let node = dump.command.subcommands?.first(where: { $0.commandName == command.configuration.commandName }),
            let args = node.arguments
        else { return [] }
        var out: [String] = []
        for a in args where a.shouldDisplay ?? true {
            let names = (a.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }
            // The help flag is in every command; said once, below.
            if names.contains("--help") { continue }
            let value = a.valueName.map { "\\fI" + roff($0) + "\\fR" }
            var tag = names.map { "\\fB" + roff($0) + "\\fR" }.joined(separator: ", ")
            if a.kind == "positional" {
                tag = value ?? ""
            } else if a.kind == "option", let value {
                tag += " " + value
            }
            if a.isRepeating == true { tag += " ..." }
            out += [".TP", tag, roff(a.abstract ?? "")]
        }
        out += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "this command's help."]
        return out
    }

    /// What the man page reads of the parser's help dump (`--experimental-dump-help`):
    /// the subcommands' arguments. Fields it does not name are skipped.
    struct HelpDump: Decodable {
        struct Command: Decodable {
            let commandName: String?
            let subcommands: [Command]?
            let arguments: [Argument]?
        }
        struct Argument: Decodable {
            struct Name: Decodable {
                let kind: String
                let name: String
            }
            let names: [Name]?
            let valueName: String?
            let kind: String?
            let isRepeating: Bool?
            let shouldDisplay: Bool?
            let abstract: String?
        }
        let command: Command
    }

    /// The most characters a line kept as written (`.nf`) may have: a man page's
    /// text is indented 7 columns, and `man` at MANWIDTH=80 must not overflow.
    static let keptWidth = 73

    /// Usage forms, each wrapped at `keptWidth` between its words and brackets,
    /// the lines after the first indented past the command's name.
    static func synopsis(_ usage: String) -> [String] {
        // The forms: a line that starts with blanks goes on the one before.
        var forms: [String] = []
        for l in usage.split(separator: "\n") {
            let text = l.drop { $0 == " " }
            if l.first == " ", !text.hasPrefix("outbox "), !forms.isEmpty {
                forms[forms.count - 1] += " " + text
            } else {
                forms.append(String(text))
            }
        }
        return forms.flatMap { form -> [String] in
            // Words outside brackets; a bracket group is one word.
            var words: [String] = [], word = "", depth = 0
            for c in form {
                if c == " " && depth == 0 {
                    if !word.isEmpty { words.append(word) }
                    word = ""
                    continue
                }
                if c == "[" { depth += 1 } else if c == "]" { depth = max(0, depth - 1) }
                word.append(c)
            }
            if !word.isEmpty { words.append(word) }
            // The command's words (`outbox run`): what follows lines up after them.
            let head = words.prefix { w in !w.isEmpty && w.allSatisfy { $0 >= "a" && $0 <= "z" } }
            let hang = String(repeating: " ", count: min(20, head.joined(separator: " ").count + 1))
            return fill(words, width: keptWidth, hang: hang)
        }
    }

    /// Words in lines of at most `width` characters (a longer word alone on its
    /// line), the lines after the first starting with `hang`.
    static func fill(_ words: [String], width: Int, hang: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for w in words {
            if current.isEmpty || current == hang {
                current += w
            } else if current.count + 1 + w.count <= width {
                current += " " + w
            } else {
                lines.append(current)
                current = hang + w
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// A table (lines kept as written), each entry of it refilled at
    /// `keptWidth` when one of its lines is longer. An entry is a line whose
    /// text starts after a first word and two blanks (`  1  a check failed`:
    /// its text column is under `a`), with the lines after it indented to that
    /// column; the refilled lines keep the column.
    static func kept(_ lines: [String]) -> [String] {
        func column(_ l: String) -> Int? {
            let c = Array(l)
            var i = 0
            while i < c.count && c[i] == " " { i += 1 }
            while i < c.count && c[i] != " " { i += 1 }
            var j = i
            while j < c.count && c[j] == " " { j += 1 }
            return j - i >= 2 && j < c.count ? j : nil
        }
        var out: [String] = []
        var k = 0
        while k < lines.count {
            guard let col = column(lines[k]) else {
                out.append(lines[k])
                k += 1
                continue
            }
            var entry = [lines[k]]
            let indent = String(repeating: " ", count: col)
            func lead(_ l: String) -> Int { l.prefix { $0 == " " }.count }
            while k + entry.count < lines.count, lead(lines[k + entry.count]) > lead(lines[k]) {
                entry.append(lines[k + entry.count])
            }
            k += entry.count
            guard entry.contains(where: { $0.count > keptWidth }) else {
                out += entry
                continue
            }
            let words = ([String(entry[0].dropFirst(col))] + entry.dropFirst()).joined(separator: " ")
                .split(separator: " ")
            let filled = fill(words.map(String.init), width: keptWidth - col, hang: "")
            out += filled.enumerated().map { ($0.offset == 0 ? String(entry[0].prefix(col)) : indent) + $0.element }
        }
        return out
    }

    /// Text paragraphs filled; a paragraph with indented lines (a table) kept as written.
    static func prose(_ text: String) -> [String] {
        var out: [String] = []
        for (n, para) in text.components(separatedBy: "\n\n").enumerated() {
            let lines = para.split(separator: "\n").map(String.init)
            if n > 0 { out.append(".PP") }
            if lines.dropFirst().contains(where: { $0.hasPrefix(" ") }) || lines.first?.hasPrefix(" ") == true {
                out += [".nf"] + kept(lines).map(line) + [".fi"]
            } else {
                out += lines.map(line)
            }
        }
        return out
    }

    /// One line of text as roff: backslashes and dashes escaped, a leading dot
    /// or quote kept from being read as a request.
    static func line(_ s: String) -> String {
        let r = roff(s)
        return r.hasPrefix(".") || r.hasPrefix("'") ? "\\&" + r : r
    }

    static func roff(_ s: String) -> String {
        s.replacingEvery("\\", with: "\\e").replacingEvery("-", with: "\\-")
    }
}
