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
        out += OutboxCommand.configuration.usage!.split(separator: "\n").map { line(String($0)) }
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
                [".PP", ".nf"] + CLI.parserUsage(command.synopsis).split(separator: "\n").map { line(String($0)) } + [
                    ".fi"
                ]
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
            "docs/guide.md, docs/scenarios.md, docs/profiles.md, docs/keys.md, docs/rules.md in the Outbox sources.",
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

    /// Text paragraphs filled; a paragraph with indented lines (a table) kept as written.
    static func prose(_ text: String) -> [String] {
        var out: [String] = []
        for (n, para) in text.components(separatedBy: "\n\n").enumerated() {
            let lines = para.split(separator: "\n").map(String.init)
            if n > 0 { out.append(".PP") }
            if lines.dropFirst().contains(where: { $0.hasPrefix(" ") }) || lines.first?.hasPrefix(" ") == true {
                out += [".nf"] + lines.map(line) + [".fi"]
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
