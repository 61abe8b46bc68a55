// Locale-identifier canonicalisation for LanguageMatcher, modelled on what ICU's
// `uloc_getBaseName` does to the strings `ualoc_localizationsToUse` is given.
// Pure standard library (no Foundation).

enum LocaleIdentifier {

    /// Canonical ICU-style base name, as `uloc_getBaseName` produces it:
    /// `-` becomes `_`; the language subtag is lower-cased, a following 4-letter subtag is a
    /// title-cased script, a following 2- or 3-character subtag an upper-cased region, and
    /// anything after that upper-cased variants (written `ll__VARIANT` when there is no
    /// region). Everything from the first `@` (keywords) or `.` (POSIX charset) is dropped,
    /// and so is everything from a BCP 47 singleton on (`-u-…`, `-x-…`), which ICU turns
    /// into keywords before stripping them.
    ///
    /// Examples: `"zh-hant-hk"` → `"zh_Hant_HK"`, `"en-gb"` → `"en_GB"`, `"es-419"` →
    /// `"es_419"`, `"en_US.UTF-8"` → `"en_US"`, `"de-DE-u-co-phonebk"` → `"de_DE"`.
    ///
    /// Legacy names are not mapped here (that is the alias step of the matcher), but, like
    /// ICU, their case is folded: `"English"` → `"english"` (ualoc.cpp's appleAliasMap
    /// comment: "names are lowercase here because they are looked up after being processed
    /// by uloc_getBaseName"). `"Base"` → `"base"`.
    ///
    /// Not modelled (documented approximation): ICU's ISO 639-2 → 639-1 and ISO 3166 alpha-3
    /// → alpha-2 conversions inside `uloc_getBaseName` (`"eng"` stays `"eng"` here; the
    /// matcher's alias table maps it to `en` one step later), the `und_` special cases, and
    /// the fixed buffer sizes (ualoc.cpp truncates base names at 57 bytes).
    static func canonical(_ id: String) -> String {
        var body = Substring(id)
        if let stop = body.firstIndex(where: { $0 == "@" || $0 == "." }) {
            body = body[..<stop]
        }
        var tokens = body.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
        if tokens.count > 1,
           let singleton = tokens.indices.dropFirst().first(where: { tokens[$0].count == 1 }) {
            tokens = Array(tokens[..<singleton])
        }
        let language = asciiLowercased(tokens[0])
        var index = 1
        var script = ""
        var region = ""
        if index < tokens.count, tokens[index].utf8.count == 4, tokens[index].allSatisfy(isASCIILetter) {
            script = asciiTitlecased(tokens[index])
            index += 1
        }
        if index < tokens.count, tokens[index].utf8.count == 2 || tokens[index].utf8.count == 3 {
            region = asciiUppercased(tokens[index])
            index += 1
        }
        let variants = tokens[index...].filter { !$0.isEmpty }.map { asciiUppercased($0) }

        var result = language
        if !script.isEmpty { result += "_" + script }
        if !region.isEmpty { result += "_" + region }
        if !variants.isEmpty {
            result += (region.isEmpty ? "__" : "_") + variants.joined(separator: "_")
        }
        return result
    }

    /// A POSIX locale environment value (`LANG`, `LC_ALL`, `LC_MESSAGES`) as a BCP 47-style
    /// language identifier: the `.codeset` and `@modifier` parts are dropped and `_` becomes
    /// `-`; `"C"`, `"POSIX"` and `""` (also with a codeset, e.g. `"C.UTF-8"`) mean `"en"`.
    /// The script modifiers `@latin`, `@cyrillic` and `@devanagari` become a script subtag
    /// (`"sr_RS@latin"` → `"sr-Latn-RS"`); every other modifier (`@euro`, …) is dropped.
    /// Returns nil for a value that is not of the form `language[_territory]…` with ASCII
    /// letters/digits (e.g. a `LANGUAGE`-style list `"en_GB:en"` or a path).
    ///
    /// Example: `"en_GB.UTF-8@euro"` → `"en-GB"`.
    static func fromPOSIX(_ value: String) -> String? {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" }
        var main = Substring(value).drop(while: isBlank)
        while let last = main.last, isBlank(last) { main = main.dropLast() }
        var modifier: Substring = ""
        if let at = main.firstIndex(of: "@") {
            modifier = main[main.index(after: at)...]
            main = main[..<at]
        }
        if let dot = main.firstIndex(of: ".") {
            main = main[..<dot]
        }
        if main.isEmpty || main == "C" || main == "POSIX" {
            return "en"
        }
        let subtags = main.split(omittingEmptySubsequences: false) { $0 == "_" || $0 == "-" }
        guard let language = subtags.first,
              (2...8).contains(language.utf8.count), language.allSatisfy(isASCIILetter),
              subtags.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isASCIILetterOrDigit) })
        else { return nil }

        var parts = subtags.map(String.init)
        let scriptModifiers = ["latin": "Latn", "cyrillic": "Cyrl", "devanagari": "Deva"]
        if let script = scriptModifiers[asciiLowercased(modifier)],
           !(parts.count > 1 && parts[1].utf8.count == 4) {
            parts.insert(script, at: 1)
        }
        return parts.joined(separator: "-")
    }

    // MARK: - internal helpers

    /// Subtags of a canonical base name (`uloc_getLanguage` / `uloc_getScript` /
    /// `uloc_getCountry` on an already canonical string).
    struct Subtags: Equatable {
        var language: String
        var script: String
        var region: String
    }

    static func subtags(ofCanonical id: String) -> Subtags {
        let tokens = id.split(separator: "_", omittingEmptySubsequences: false)
        var result = Subtags(language: String(tokens.first ?? ""), script: "", region: "")
        var index = 1
        if index < tokens.count, tokens[index].utf8.count == 4, tokens[index].allSatisfy(isASCIILetter) {
            result.script = String(tokens[index])
            index += 1
        }
        if index < tokens.count, tokens[index].utf8.count == 2 || tokens[index].utf8.count == 3 {
            result.region = String(tokens[index])
        }
        return result
    }

    static func isASCIILetter(_ c: Character) -> Bool {
        guard let a = c.asciiValue else { return false }
        return (a >= 0x41 && a <= 0x5A) || (a >= 0x61 && a <= 0x7A)
    }

    static func isASCIILetterOrDigit(_ c: Character) -> Bool {
        guard let a = c.asciiValue else { return false }
        return isASCIILetter(c) || (a >= 0x30 && a <= 0x39)
    }

    /// ASCII-only case mapping, like ICU's `uprv_tolower`/`uprv_toupper` on invariant chars.
    static func asciiLowercased<S: StringProtocol>(_ s: S) -> String {
        String(decoding: s.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    static func asciiUppercased<S: StringProtocol>(_ s: S) -> String {
        String(decoding: s.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    static func asciiTitlecased<S: StringProtocol>(_ s: S) -> String {
        guard let first = s.first else { return "" }
        return asciiUppercased(String(first)) + asciiLowercased(s.dropFirst())
    }
}
