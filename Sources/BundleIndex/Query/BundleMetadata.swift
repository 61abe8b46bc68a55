/// Info.plist details CF applies on every platform: the localization "found" test and the
/// numeric-version fix-up (docs/search-pattern.md, "The localization list" and
/// "CFBundleNumericVersion").
enum BundleMetadata {
    private static let legacyNames: [String: String] = [
        "English": "en", "French": "fr", "German": "de", "Italian": "it", "Dutch": "nl",
        "Spanish": "es", "Japanese": "ja",
    ]

    /// `_CFBundleCopyLanguageFoundInLocalizations`: exact, legacy name ↔ code, `-`/`_` swapped
    /// at index 2, or equal canonical language identifiers.
    /// Names are compared as CF compares them, by code units (`sameBytes`).
    static func languageFound(_ language: String, in list: [String]) -> Bool {
        func listed(_ name: String) -> Bool { list.contains { sameBytes($0, name) } }
        if listed(language) { return true }
        if let code = legacyNames[language], listed(code) { return true }
        if let legacy = legacyNames.first(where: { $0.value == language })?.key, listed(legacy) { return true }
        var units = Array(language.utf16)
        let dash = UInt16(UInt8(ascii: "-")), underscore = UInt16(UInt8(ascii: "_"))
        if units.count > 2, units[2] == dash || units[2] == underscore {
            units[2] = units[2] == dash ? underscore : dash
            if listed(String(decoding: units, as: UTF16.self)) { return true }
        }
        let canonical = canonicalLanguage(language)
        return list.contains { sameBytes(canonicalLanguage($0), canonical) }
    }

    /// A small stand-in for `CFLocaleCreateCanonicalLanguageIdentifierFromString`: legacy names
    /// to codes, `_` to `-`, language lower-case, script title-case, region upper-case.
    static func canonicalLanguage(_ id: String) -> String {
        if let code = legacyNames[id] { return code }
        let parts = id.split(whereSeparator: { $0 == "-" || $0 == "_" })
        return parts.enumerated().map { i, p in
            if i == 0 { return p.lowercased() }
            if p.count == 4 { return p.prefix(1).uppercased() + p.dropFirst().lowercased() }
            return p.count == 2 ? p.uppercased() : String(p)
        }.joined(separator: "-")
    }

    /// `_CFBundleInfoPlistFixupInfoDictionary`: a string version becomes
    /// `CFBundleNumericVersion`; a number stays; anything else removes the key.
    static func fixUpNumericVersion(_ dict: inout [String: PropertyListValue]) {
        guard let v = dict["CFBundleNumericVersion"] ?? dict["CFBundleVersion"] else { return }
        switch v {
        case .string(let s): dict["CFBundleNumericVersion"] = .integer(Int64(Int32(bitPattern: versionNumber(s))))
        case .integer, .real: break
        default: dict["CFBundleNumericVersion"] = nil
        }
    }

    /// `_CFVersionNumberFromString`: `AB.C.D[dabf]NNN` in at most 10 characters, packed as
    /// major (two digits), two minor digits, stage and build; anything else is 0.
    static func versionNumber(_ s: String) -> UInt32 {
        let c = Array(s.utf16)
        guard !c.isEmpty, c.count <= 10 else { return 0 }
        func digit(_ i: Int) -> UInt32? {
            guard i < c.count, c[i] >= 48, c[i] <= 57 else { return nil }
            return UInt32(c[i] - 48)
        }
        let dot: UInt16 = 46
        var i = 0
        var major1: UInt32 = 0, major2: UInt32 = 0, minor1: UInt32 = 0, minor2: UInt32 = 0
        var stage: UInt32 = 0x80, build: UInt32 = 0
        var digitsDone = false
        if let d = digit(0) {
            major2 = d; i = 1
            if i < c.count {
                if let d2 = digit(i) {
                    major1 = major2; major2 = d2; i += 1
                    if i < c.count { if c[i] == dot { i += 1 } else { digitsDone = true } }
                } else if c[i] == dot { i += 1 } else { digitsDone = true }
            }
        } else if c[0] == dot { i = 1 } else { digitsDone = true }
        if i < c.count && !digitsDone {
            if let d = digit(i) {
                minor1 = d; i += 1
                if i < c.count { if c[i] == dot { i += 1 } else { digitsDone = true } }
            } else { digitsDone = true }
        }
        if i < c.count && !digitsDone {
            if let d = digit(i) { minor2 = d; i += 1 } else { digitsDone = true }
        }
        if i < c.count {
            switch c[i] {
            case 100: stage = 0x20  // d
            case 97: stage = 0x40   // a
            case 98: stage = 0x60   // b
            case 102: stage = 0x80  // f
            default: return 0
            }
            i += 1
        }
        for _ in 0..<3 where i < c.count {
            guard let d = digit(i) else { return 0 }
            build = build * 10 + d
            i += 1
        }
        if build > 0xFF || i < c.count { return 0 }
        return major1 << 28 | major2 << 24 | minor1 << 20 | minor2 << 16 | stage << 8 | build
    }
}
