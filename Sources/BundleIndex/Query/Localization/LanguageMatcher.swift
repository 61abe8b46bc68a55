// Apple's bundle localization matcher, as pure Swift (no Foundation, no ICU).
//
// `localizationsToUse` follows `ualoc_localizationsToUse` in swiftlang/swift-foundation-icu
// icuSources/common/ualoc.cpp; the bundle-level wrappers follow CFBundle_Locale.c in
// swiftlang/swift-corelibs-foundation (`_CFBundleCreateMutableArrayOfFallbackLanguages`,
// `_CFBundleCopyPreferredLanguagesInList`, `_CFBundleCopyLocalizationsForPreferences`,
// `_CFBundleCopyLanguageSearchListInBundle`). Described in docs/search-pattern.md, "Language
// matching", "The language search list", "Preferred localizations" and "Search order".
// ualoc.cpp line numbers below are those of swift-foundation-icu as shipped with Swift 6.3.1,
// where `ualoc_localizationsToUse` starts at l.1082. Data tables and their approximations:
// LanguageData.swift.
//
// This is the behaviour of CF *with* Apple ICU (Darwin). On Linux, swift-corelibs-foundation
// is built without `__HAS_APPLE_ICU__` and every match is empty (docs/search-pattern.md,
// L-one-language).

enum LanguageMatcher {

    /// `ualoc_localizationsToUse(preferred, available)`: the best match among `available` for
    /// the FIRST preferred language that matches anything, followed by that winner's other
    /// available fallbacks in parent-chain order. `["zxx"]` when nothing matches but
    /// `available` contains `"zxx"`; otherwise `[]` when nothing matches.
    static func localizationsToUse(preferred: [String], available: [String]) -> [String] {
        localizationsToUse(preferred: preferred, available: available.map { LocaleIDInfo($0, penalizeNonDefaultCountry: true) })
    }

    /// `localizationsToUse(preferred:available:)` with the available IDs worked out already
    /// (`AvailableLocalizations`).
    static func localizationsToUse(preferred: [String], available avail: [LocaleIDInfo]) -> [String] {
        let prefs = preferred.map { LocaleIDInfo($0, penalizeNonDefaultCountry: false) }

        var result: Int? = nil
        var resultScore = 999
        var portugueseResult: Int? = nil

        // First loop (l.1136): only the first preferred language with any match contributes.
        var prefIndex = 0
        while result == nil && prefIndex < prefs.count {
            let pref = prefs[prefIndex]
            prefIndex += 1
            for (availIndex, loc) in avail.enumerated() {
                if resultScore > -1 && pref.base == loc.base {  // l.1147
                    result = availIndex
                    resultScore = -1
                } else if resultScore > 0 && pref.normalized == loc.normalized {  // l.1151
                    result = availIndex
                    resultScore = 0
                } else if resultScore > 0 && pref.languageGroup == loc.languageGroup {  // l.1154
                    for (i, prefParent) in pref.parentChain.enumerated() {
                        for (j, availParent) in loc.parentChain.enumerated() where prefParent == availParent {
                            // l.1169: only a preferred pt_PT against an available pt_BR is kept
                            // aside as a last resort. It is one-way: a preferred pt_BR
                            // scores pt_PT normally.
                            if pref.normalized == "pt_PT" && loc.normalized == "pt_BR" {
                                portugueseResult = availIndex
                            } else {
                                var score = i + j  // l.1175
                                if pref.language != loc.language { score += 1 }
                                if score < resultScore {  // strict: ties keep the earlier entry
                                    resultScore = score
                                    result = availIndex
                                }
                            }
                        }
                    }
                }
            }
        }

        // Second loop (l.1201): an inexact, country-specific, non-Chinese winner yields to an
        // exact (base or normalized) match of any preferred language of the same language.
        // The source scans the preferences from the first one; a preference before the
        // deciding one cannot have an exact match (it would have decided), so in effect only
        // a later preferred language can win here.
        if let winner = result, resultScore > 0, avail[winner].specifiesCountry,
           avail[winner].language != "zh" {
            search: for pref in prefs where pref.language == avail[winner].language {
                for (availIndex, loc) in avail.enumerated()
                where pref.base == loc.base || pref.normalized == loc.normalized {
                    result = availIndex
                    break search
                }
            }
        }

        if result == nil { result = portugueseResult }  // l.1222

        var output: [String] = []
        if let winner = result {  // l.1229
            output.append(avail[winner].original)
            let chain = avail[winner].parentChain
            for (chainIndex, entry) in chain.enumerated() {
                if chainIndex > 0 && chain[chainIndex - 1] == entry { continue }  // penalty duplicate
                for (availIndex, loc) in avail.enumerated() where availIndex != winner {
                    // l.1241 HACK: zh_Hant_HK on the chain also pulls in zh_Hant_TW. (ualoc.h's
                    // example table predates this and lists e.g. zh-Hant-MO over
                    // {zh_CN,zh_TW,zh_HK,zh_MO} as [zh_MO, zh_HK, zh_TW]; the code gives
                    // [zh_MO, zh_TW, zh_HK] because zh_TW comes first in `available`.)
                    if entry == "zh_Hant_HK" && loc.normalized == "zh_Hant_TW" {
                        output.append(loc.original)
                    } else if entry == loc.normalized {
                        output.append(loc.original)
                    }
                }
            }
        }

        if output.isEmpty, let zxx = avail.first(where: { $0.original == "zxx" }) {  // l.1253
            output.append(zxx.original)
        }
        return output
    }

    /// `_CFBundleCopyLanguageSearchListInBundle` with Apple's matcher (docs/search-pattern.md,
    /// "The language search list"), without the main-bundle step: `localizations` is the
    /// bundle's localization list (docs/search-pattern.md, "The localization list"),
    /// `developmentRegion` its `CFBundleDevelopmentRegion`, `preferences` the user's
    /// preferred languages. `defaultLocalization` stands for CF's process-wide
    /// `_CFBundleSetDefaultLocalization` value (normally unset, hence `"en"`).
    static func bundleSearchList(
        localizations: [String], developmentRegion: String?, preferences: [String],
        defaultLocalization: String? = nil
    ) -> [String] {
        let available = AvailableLocalizations(localizations)
        var result = preferredLanguagesInList(available, devLang: developmentRegion, user: preferences)
        if result.isEmpty {
            result = preferredLanguagesInList(available, devLang: "en_US", user: preferences)
        }
        if result.isEmpty, let first = localizations.first {
            result = preferredLanguagesInList(available, devLang: first, user: preferences)
        }
        if let dev = developmentRegion {
            if !result.contains(dev) { result.append(dev) }
        } else if let english = ["en", "English", "en_US"].first(where: { localizations.contains($0) }) {
            if !result.contains(english) { result.append(english) }
        }
        if result.isEmpty { result.append(defaultLocalization ?? "en") }
        return result
    }

    /// `_CFBundleCopyLocalizationsForPreferences` with Apple's matcher (docs/search-pattern.md,
    /// "Preferred localizations"), the function
    /// behind `Bundle.preferredLocalizations(from:forPreferences:)`: the matcher's list, or
    /// `[from[0]]` when nothing matches, or `["en"]` when `from` is empty.
    static func preferredLocalizations(from: [String], preferences: [String]) -> [String] {
        guard let first = from.first else { return ["en"] }
        let result = preferredLanguagesInList(from, devLang: nil, user: preferences)
        return result.isEmpty ? [first] : result
    }

    // MARK: - CFBundle_Locale.c helpers

    /// `_CFBundleCopyPreferredLanguagesInList` without the main-bundle step:
    /// match the user's languages; else the development language; else `en_US`.
    static func preferredLanguagesInList(_ list: [String], devLang: String?, user: [String]) -> [String] {
        preferredLanguagesInList(AvailableLocalizations(list), devLang: devLang, user: user)
    }

    static func preferredLanguagesInList(_ list: AvailableLocalizations, devLang: String?, user: [String]) -> [String] {
        if !user.isEmpty, let found = fallbackLanguages(available: list, preferred: user) {
            return found
        }
        if let devLang, let found = fallbackLanguages(available: list, preferred: [devLang]) {
            return found
        }
        return fallbackLanguages(available: list, preferred: ["en_US"]) ?? []
    }

    /// `_CFBundleCreateMutableArrayOfFallbackLanguages`: nil for "no match". CF hands ICU
    /// C strings built by `makeBuffer`, which gives up on an empty list or on any entry that
    /// is not pure ASCII or is longer than 156 characters (ULOC_FULLNAME_CAPACITY - 1); then
    /// ICU is not called at all.
    static func fallbackLanguages(available: [String], preferred: [String]) -> [String]? {
        fallbackLanguages(available: AvailableLocalizations(available), preferred: preferred)
    }

    static func fallbackLanguages(available: AvailableLocalizations, preferred: [String]) -> [String]? {
        guard let infos = available.infos, convertible(preferred) else { return nil }
        let found = localizationsToUse(preferred: preferred, available: infos)
        return found.isEmpty ? nil : Array(found.prefix(512))  // CF's result buffer holds 512
    }

    /// Whether `makeBuffer` hands the list to ICU (see `fallbackLanguages`).
    static func convertible(_ list: [String]) -> Bool {
        !list.isEmpty && list.allSatisfy { $0.utf8.count <= 156 && $0.utf8.allSatisfy { $0 < 0x80 } }
    }
}

/// A list of available localizations with its locale IDs worked out once, for the several
/// matches `bundleSearchList` makes against it (up to nine, each of which worked them out
/// again; the search list was ~28 000 instructions of an apple-profile open, ~20 000 with this,
/// docs/performance.md, "Opening a bundle").
struct AvailableLocalizations {
    /// Per name, as `localizationsToUse` reads an available ID; nil when CF would not hand the
    /// list to ICU at all (`LanguageMatcher.convertible`).
    let infos: [LocaleIDInfo]?

    init(_ names: [String]) {
        infos = LanguageMatcher.convertible(names) ? names.map { LocaleIDInfo($0, penalizeNonDefaultCountry: true) } : nil
    }
}

// MARK: - ualoc.cpp LocaleIDInfo

/// The transformed forms of one locale ID (ualoc.cpp `LocaleIDInfo`).
struct LocaleIDInfo {
    let original: String
    /// `uloc_getBaseName(original)`.
    let base: String
    /// `ualoc_normalize(base)`: appleAliasMap, else ICU's language aliases.
    let normalized: String
    /// `uloc_getLanguage(normalized)`.
    let language: String
    /// `language`, except ars→ar, hi→en, nb/nn→no, wuu/yue→zh.
    let languageGroup: String
    let specifiesCountry: Bool
    /// `normalized`, (again, if penalized), then `ualoc_getParent` repeatedly.
    let parentChain: [String]

    init(_ original: String, penalizeNonDefaultCountry: Bool) {
        self.original = original
        base = LocaleIdentifier.canonical(original)
        normalized = Self.normalize(base)
        let subtags = LocaleIdentifier.subtags(ofCanonical: normalized)
        language = subtags.language
        languageGroup = LanguageData.languageGroup[language] ?? language
        specifiesCountry = !subtags.region.isEmpty
        parentChain = Self.parentChain(
            of: normalized,
            penalize: penalizeNonDefaultCountry && specifiesCountry
                && !LanguageData.penaltyExempt.contains(normalized)
                && LikelySubtags.minimizedKeepsRegion(subtags))
    }

    /// `ualoc_normalize`.
    static func normalize(_ base: String) -> String {
        if let apple = LanguageData.appleAliasMap[base] { return apple }
        let aliases = LanguageData.icuLanguageAliases
        if let direct = aliases[base] { return direct }
        // Retry with the language alone, then put the script/region back (ICU's
        // strippedScriptAndRegion branch).
        guard let underscore = base.firstIndex(of: "_"),
              let replacement = aliases[String(base[..<underscore])] else { return base }
        let rest = base[underscore...]  // "_Scrp_RR", "_RR", ...
        if !replacement.contains("_") { return replacement + rest }
        // The alias itself has a subtag: append the original region only if the alias ends
        // in a script ("sh_BA" -> "sr_Latn_BA"), and only if that region is short.
        let bytes = Array(replacement.utf8)
        if bytes.count > 5 && bytes[bytes.count - 5] == UInt8(ascii: "_"),
           let lastUnderscore = base.lastIndex(of: "_"), base[lastUnderscore...].utf8.count <= 4 {
            return replacement + base[lastUnderscore...]
        }
        return replacement
    }

    /// `LocaleIDInfo::calcParentChain`: at most 9 entries (kMaxParentChainLength 10, the
    /// last slot is always the terminator, so a "maximum of 10" counts that slot).
    static func parentChain(of normalized: String, penalize: Bool) -> [String] {
        var chain = [normalized]
        if penalize { chain.append(normalized) }
        while chain.count < 9 {
            let parent = Self.parent(of: chain[chain.count - 1])
            if parent.isEmpty || parent == "root" { break }
            chain.append(parent)
        }
        return chain
    }

    /// `ualoc_getParent`: appleParentMap, else CLDR parent locales, else truncation.
    static func parent(of locale: String) -> String {
        if let apple = LanguageData.appleParentMap[locale] { return apple }
        if let cldr = LanguageData.cldrParentLocales[locale] { return cldr }
        let subtags = LocaleIdentifier.subtags(ofCanonical: locale)
        if !subtags.script.isEmpty, subtags.region.isEmpty,
           locale == subtags.language + "_" + subtags.script,
           let likely = LanguageData.likely[subtags.language], likely.script != subtags.script {
            return "root"  // CLDR parentLocales rule "nonlikelyScript"
        }
        // uloc_getParent: cut at the last '_' ("und_" prefix dropped), "" when there is none.
        guard let cut = locale.lastIndex(of: "_") else { return "" }
        var parent = String(locale[..<cut])
        if parent.hasPrefix("und_") { parent.removeFirst(3) }
        return parent
    }
}

// MARK: - uloc_minimizeSubtags, as far as the matcher needs it

enum LikelySubtags {
    /// Does `uloc_minimizeSubtags` keep the region of this (canonical) locale? That is,
    /// is the region not implied by the language (and script)? Languages without
    /// likely-subtags data here keep their region (see LanguageData.swift).
    static func minimizedKeepsRegion(_ id: LocaleIdentifier.Subtags) -> Bool {
        guard !id.region.isEmpty else { return false }
        guard let full = maximize(id.language, id.script, id.region) else { return true }
        if maximize(id.language, "", "") == full { return false }  // -> "ll"
        if maximize(id.language, "", full.region) == full { return true }  // -> "ll_RR"
        if maximize(id.language, full.script, "") == full { return false }  // -> "ll_Ssss"
        return true
    }

    /// `uloc_addLikelySubtags` restricted to the script and region (nil: no data).
    static func maximize(_ language: String, _ script: String, _ region: String) -> Maximized? {
        guard let likely = LanguageData.likely[language] else { return nil }
        let resolvedScript = !script.isEmpty ? script
            : LanguageData.likelyScriptForRegion[language + "_" + region] ?? likely.script
        let resolvedRegion = !region.isEmpty ? region
            : LanguageData.likelyRegionForScript[language + "_" + resolvedScript] ?? likely.region
        return Maximized(script: resolvedScript, region: resolvedRegion)
    }

    struct Maximized: Equatable {
        var script: String
        var region: String
    }
}
