import Glibc

/// Plain (not `--json`) output of names and paths. File names may hold any byte but `/` and NUL:
/// a newline in one would split a line for a script, an ESC would drive a terminal. On a terminal
/// control characters are shown escaped (`\n`, `\t`, `\e`, `\x7f`…); to a pipe or a file they are
/// written as they are, one value per line — or, with `--null`, each value ends with a NUL byte
/// (`xargs -0`), which is the only safe framing for arbitrary names.
package enum PlainOutput {
    package static let stdoutIsTerminal = isatty(1) != 0

    /// Writes `value` as one record: NUL-terminated with `nullTerminated`, else one line.
    package static func emit(_ value: String, nullTerminated: Bool = false) {
        if nullTerminated {
            print(value, terminator: "\u{0}")
        } else {
            print(stdoutIsTerminal ? escapedForTerminal(value) : value)
        }
    }

    /// `value` with its control characters (C0, DEL, C1) spelled out, backslashes doubled.
    package static func escapedForTerminal(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
