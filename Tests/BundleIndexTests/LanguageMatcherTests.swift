// Tests for LanguageMatcher / LocaleIdentifier: Apple's ualoc_localizationsToUse and the
// CFBundle wrappers around it (docs/search-pattern.md, "Language matching", "The language
// search list", "Preferred localizations"). Vectors come from ualoc.h's example table and from
// hand-tracing ualoc.cpp.
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

private func ualocMatch(_ preferred: [String], _ available: [String]) -> [String] {
    LanguageMatcher.localizationsToUse(preferred: preferred, available: available)
}

@Suite("LanguageMatcher (ualoc_localizationsToUse)")
struct LanguageMatcherTests {

    // MARK: Language matching

    @Test("a region follows Apple's parent chain: en-IN -> en_GB -> en")
    func regionFollowsAppleParentChain() {
        #expect(ualocMatch(["en-IN"], ["en", "en_AU", "en_GB"]) == ["en_GB", "en"])
    }

    @Test("a region without a special parent falls back to the bare language")
    func regionWithoutSpecialParentFallsBackToLanguage() {
        #expect(ualocMatch(["en-CA"], ["en", "en_AU", "en_GB"]) == ["en"])
        #expect(ualocMatch(["en-US"], ["en", "en_AU", "en_GB"]) == ["en"])
    }

    @Test("legacy names match codes both ways (English, French <-> en, fr)")
    func legacyNamesMatchBothWays() {
        for pref in ["en", "en-US", "en-GB", "en-IN", "en-AU", "en-CA", "en_NZ"] {
            #expect(ualocMatch([pref], ["English"]) == ["English"], "\(pref)")
        }
        #expect(ualocMatch(["fr-CA"], ["German", "French"]) == ["French"])
        #expect(ualocMatch(["French"], ["de", "fr"]) == ["fr"])
        #expect(ualocMatch(["English"], ["fr", "en_GB", "en"]) == ["en"])
        // an exact base name beats an alias match, whatever the order
        #expect(ualocMatch(["en"], ["English", "en"]) == ["en", "English"])
    }

    @Test("Traditional Chinese (Hong Kong) is followed by Taiwan")
    func chineseHongKongPullsInTaiwan() {
        #expect(ualocMatch(["zh-Hant-HK"], ["zh_CN", "zh_TW", "zh_HK"]) == ["zh_HK", "zh_TW"])
        #expect(ualocMatch(["zh-Hant-MO"], ["zh_CN", "zh_TW", "zh_HK"]) == ["zh_HK", "zh_TW"])
        // ualoc.h's table says [zh_MO, zh_HK, zh_TW]; the code's zh_Hant_HK hack adds
        // zh_TW while walking past zh_Hant_HK, in `available` order (ualoc.cpp l.1241).
        #expect(ualocMatch(["zh-Hant-MO"], ["zh_CN", "zh_TW", "zh_HK", "zh_MO"]) == ["zh_MO", "zh_TW", "zh_HK"])
    }

    @Test("Simplified Chinese matches by script, not region")
    func chineseSimplifiedMatchesByScript() {
        #expect(ualocMatch(["zh-Hans-SG"], ["zh_CN", "zh_TW", "zh_HK"]) == ["zh_CN"])
        #expect(ualocMatch(["zh"], ["zh_CN", "zh_TW"]) == ["zh_CN"])
        #expect(ualocMatch(["zh-Hant"], ["zh_CN", "zh_TW"]) == ["zh_TW"])
        #expect(ualocMatch(["zh-HK"], ["zh_CN", "zh_TW"]) == ["zh_TW"])
        #expect(ualocMatch(["zh-Hans-HK"], ["zh_CN", "zh_TW", "zh_HK"]) == ["zh_CN"])
    }

    @Test("Latin-American Spanish falls back through es_419")
    func latinAmericanSpanishUsesEs419() {
        #expect(ualocMatch(["es-AR"], ["es", "es_419", "es_MX"]) == ["es_419", "es"])
        #expect(ualocMatch(["es-MX"], ["es", "es_419", "es_MX"]) == ["es_MX", "es_419", "es"])
        #expect(ualocMatch(["es-MX"], ["es", "es_419"]) == ["es_419", "es"])
        #expect(ualocMatch(["es-419"], ["es", "es_ES", "es_MX"]) == ["es"])
        #expect(ualocMatch(["es-ES"], ["es", "es_ES", "es_MX"]) == ["es_ES", "es"])
    }

    @Test("Brazilian Portuguese is plain pt")
    func brazilianPortugueseIsPlainPortuguese() {
        #expect(ualocMatch(["pt-BR"], ["pt", "pt_PT"]) == ["pt"])
        #expect(ualocMatch(["pt-BR"], ["pt", "pt_BR", "pt_PT"]) == ["pt_BR", "pt"])
    }

    @Test("Lusophone regions fall back through pt_PT")
    func lusophoneRegionsUsePortugal() {
        #expect(ualocMatch(["pt-MO"], ["pt", "pt_BR", "pt_PT"]) == ["pt_PT", "pt"])
        #expect(ualocMatch(["pt-MO"], ["pt", "pt_PT"]) == ["pt_PT", "pt"])
        #expect(ualocMatch(["pt-MO"], ["pt", "pt_BR"]) == ["pt"])
    }

    @Test("pt_PT takes pt_BR only as a last resort (one-way, as in ualoc.cpp l.1169)")
    func portugalToBrazilOnlyAsLastResort() {
        #expect(ualocMatch(["pt-PT"], ["pt_BR", "fr"]) == ["pt_BR"])
        #expect(ualocMatch(["pt-PT", "fr"], ["pt_BR", "fr"]) == ["fr"])
        // The last resort is one-way: the source sets it only for a preferred pt_PT, so a
        // preferred pt_BR simply scores pt_PT.
        #expect(ualocMatch(["pt-BR", "fr"], ["pt_PT", "fr"]) == ["pt_PT"])
    }

    @Test("the first preferred language that matches anything decides")
    func firstMatchingPreferredLanguageDecides() {
        #expect(ualocMatch(["ja", "de", "fr"], ["fr", "de"]) == ["de"])
        #expect(ualocMatch(["de-AT", "fr"], ["fr", "de"]) == ["de"])
        // a later, better (exact) match of another language does not win
        #expect(ualocMatch(["en-AU", "fr"], ["fr", "en"]) == ["en"])
    }

    @Test("an inexact regional winner yields to an exact match of the same language")
    func exactSameLanguageMatchLaterInPreferencesWins() {
        #expect(ualocMatch(["fr-CH", "fr-CA"], ["fr_FR", "fr_CA"]) == ["fr_CA"])
        // ... but not to another language
        #expect(ualocMatch(["fr-CH", "de"], ["fr_FR", "de"]) == ["fr_FR"])
    }

    @Test("the language's default country is preferred (non-default countries are penalized)")
    func defaultCountryPreferred() {
        #expect(ualocMatch(["it"], ["it_CH", "it_IT"]) == ["it_IT"])
        #expect(ualocMatch(["de"], ["de_AT", "de_DE"]) == ["de_DE"])
        // ties keep the earlier available entry
        #expect(ualocMatch(["de"], ["de_AT", "de_CH"]) == ["de_AT"])
    }

    @Test("zxx is returned when nothing matches; otherwise the result is empty")
    func zxxWhenNothingMatches() {
        #expect(ualocMatch(["ja"], ["fr", "zxx"]) == ["zxx"])
        #expect(ualocMatch(["ja"], ["fr", "de"]) == [])
        #expect(ualocMatch([], ["fr"]) == [])
        #expect(ualocMatch(["fr"], []) == [])
    }

    @Test("Base never matches a real language")
    func baseNeverMatchesARealLanguage() {
        #expect(ualocMatch(["en", "fr", "de-DE"], ["Base"]) == [])
        #expect(ualocMatch(["de-AT"], ["Base", "de"]) == ["de"])
        #expect(ualocMatch(["en-GB"], ["Base", "en", "en_GB", "fr"]) == ["en_GB", "en"])
    }

    @Test("a non-likely script does not fall back to the bare language (CLDR nonlikelyScript)")
    func nonLikelyScriptDoesNotFallBack() {
        #expect(ualocMatch(["sr-Latn"], ["sr"]) == [])
        #expect(ualocMatch(["sr-Latn-RS"], ["sr", "sr_Latn"]) == ["sr_Latn"])
        #expect(ualocMatch(["sr-RS"], ["sr_Latn", "sr"]) == ["sr"])
    }

    @Test("ICU language aliases normalize deprecated codes (iw, sh, eng)")
    func icuLanguageAliases() {
        #expect(ualocMatch(["he"], ["iw"]) == ["iw"])
        #expect(ualocMatch(["iw-IL"], ["he"]) == ["he"])
        #expect(ualocMatch(["sh-BA"], ["sr_Latn"]) == ["sr_Latn"])
        #expect(ualocMatch(["eng"], ["fr", "en"]) == ["en"])
        #expect(LocaleIDInfo.normalize("sh_BA") == "sr_Latn_BA")
        #expect(LocaleIDInfo.normalize("iw_Hebr_IL") == "he_Hebr_IL")
    }

    @Test("language groups compare related languages (nb/no, hi -> en)")
    func languageGroups() {
        #expect(ualocMatch(["nb"], ["no", "fr"]) == ["no"])
        #expect(ualocMatch(["no-NO"], ["nb", "fr"]) == ["nb"])
        #expect(ualocMatch(["hi-Latn"], ["en", "en_GB"]) == ["en_GB", "en"])
        #expect(ualocMatch(["yue-HK"], ["zh_CN", "zh_TW", "zh_HK"]) == ["zh_HK", "zh_TW"])
    }

    @Test("parent chains: appleParentMap, then CLDR parents, then truncation; penalty repeats")
    func parentChains() {
        #expect(LocaleIDInfo.parentChain(of: "en_NZ", penalize: false) == ["en_NZ", "en_AU", "en_GB", "en_001", "en"])
        #expect(LocaleIDInfo.parentChain(of: "en_NZ", penalize: true)
            == ["en_NZ", "en_NZ", "en_AU", "en_GB", "en_001", "en"])
        #expect(LocaleIDInfo.parentChain(of: "zh_Hant_HK", penalize: false) == ["zh_Hant_HK", "zh_HK", "zh_Hant", "zh_TW"])
        #expect(LocaleIDInfo.parentChain(of: "de_CH", penalize: false) == ["de_CH", "de"])
        #expect(LocaleIDInfo.parentChain(of: "pt_AO", penalize: false) == ["pt_AO", "pt_PT", "pt"])
        #expect(LocaleIDInfo.parentChain(of: "yue", penalize: true).count <= 9)
        #expect(LocaleIdentifier.canonical("yue") == "yue")
    }

    @Test("the non-default-country penalty follows uloc_minimizeSubtags, es_MX and zh_Hant_TW exempt")
    func nonDefaultCountryPenalty() {
        func penalized(_ id: String) -> Bool {
            let info = LocaleIDInfo(id, penalizeNonDefaultCountry: true)
            return info.parentChain.count > 1 && info.parentChain[0] == info.parentChain[1]
        }
        #expect(penalized("en_GB"))
        #expect(penalized("es_419"))
        #expect(penalized("pt_PT"))
        #expect(penalized("zh_HK"))
        #expect(!penalized("en_US"))
        #expect(!penalized("pt_BR"))
        #expect(!penalized("zh_CN"))
        #expect(!penalized("es_MX"))
        #expect(!penalized("zh_TW"))
        #expect(!penalized("sr_Latn_RS"))
        #expect(!penalized("en"))
    }

    @Test("ualoc.h example table (English lists 3 and 4)")
    func ualocHeaderEnglishExamples() {
        let list3 = ["en", "en_AU", "en_GB", "en_CA", "en_IN", "en_US"]
        #expect(ualocMatch(["en-US"], list3) == ["en_US", "en"])
        #expect(ualocMatch(["en-IN"], list3) == ["en_IN", "en_GB", "en"])
        #expect(ualocMatch(["en-AU"], list3) == ["en_AU", "en_GB", "en"])
        #expect(ualocMatch(["en-CA"], list3) == ["en_CA", "en"])
        #expect(ualocMatch(["en-Latn-US"], list3) == ["en"])  // the "*" entry: "currently ... just en"
        let list4 = ["en", "en_AU", "en_GB", "en_001"]
        #expect(ualocMatch(["en-AU"], list4) == ["en_AU", "en_GB", "en_001", "en"])
        #expect(ualocMatch(["en-IL"], list4) == ["en_001", "en"])
    }

    // MARK: The language search list

    @Test("search list: the user's region, then its fallbacks (dev region already present)")
    func searchListUserRegionWithFallbacks() {
        let l = ["Base", "en", "en_GB", "fr"]
        #expect(LanguageMatcher.bundleSearchList(localizations: l, developmentRegion: "en", preferences: ["en-GB"])
            == ["en_GB", "en"])
    }

    @Test("search list: the development region is appended")
    func searchListAppendsDevelopmentRegion() {
        let l = ["Base", "en", "en_GB", "fr"]
        #expect(LanguageMatcher.bundleSearchList(localizations: l, developmentRegion: "en", preferences: ["de", "fr"])
            == ["fr", "en"])
        // appended even when it is not a localization of the bundle
        #expect(LanguageMatcher.bundleSearchList(localizations: ["fr"], developmentRegion: "de", preferences: ["fr"])
            == ["fr", "de"])
    }

    @Test("search list: no user match falls back to the development region")
    func searchListFallsBackToDevelopmentRegion() {
        let l = ["Base", "en", "en_GB", "fr"]
        #expect(LanguageMatcher.bundleSearchList(localizations: l, developmentRegion: "en", preferences: ["ja"]) == ["en"])
        #expect(LanguageMatcher.bundleSearchList(localizations: l, developmentRegion: "fr", preferences: ["ja"]) == ["fr"])
    }

    @Test("search list: en_US, then the first localization, are the last match backstops")
    func searchListBackstops() {
        #expect(LanguageMatcher.bundleSearchList(localizations: ["de", "en"], developmentRegion: "ja", preferences: ["ko"])
            == ["en", "ja"])
        #expect(LanguageMatcher.bundleSearchList(localizations: ["de", "fr"], developmentRegion: "ja", preferences: ["ko"])
            == ["de", "ja"])
    }

    @Test("search list without a development region appends en, English or en_US")
    func searchListWithoutDevelopmentRegionAppendsEnglish() {
        #expect(LanguageMatcher.bundleSearchList(localizations: ["fr", "English"], developmentRegion: nil, preferences: ["fr"])
            == ["fr", "English"])
        #expect(LanguageMatcher.bundleSearchList(localizations: ["fr", "en_US", "en"], developmentRegion: nil, preferences: ["fr"])
            == ["fr", "en"])
        #expect(LanguageMatcher.bundleSearchList(localizations: [], developmentRegion: nil, preferences: ["fr"]) == ["en"])
        #expect(LanguageMatcher.bundleSearchList(localizations: [], developmentRegion: "de", preferences: ["fr"]) == ["de"])
    }

    // MARK: Preferred localizations (from:forPreferences:)

    @Test("preferredLocalizations: the matcher's list with fallbacks")
    func preferredLocalizationsWithFallbacks() {
        #expect(LanguageMatcher.preferredLocalizations(from: ["en", "en_GB", "en_AU"], preferences: ["en-IN"])
            == ["en_GB", "en"])
    }

    @Test("preferredLocalizations: en_US, then from[0], then en as backstops")
    func preferredLocalizationsBackstops() {
        #expect(LanguageMatcher.preferredLocalizations(from: ["fr", "en"], preferences: ["ja"]) == ["en"])
        #expect(LanguageMatcher.preferredLocalizations(from: ["fr", "de"], preferences: ["ja"]) == ["fr"])
        #expect(LanguageMatcher.preferredLocalizations(from: ["fr", "de"], preferences: []) == ["fr"])
        #expect(LanguageMatcher.preferredLocalizations(from: [], preferences: ["fr"]) == ["en"])
    }

    @Test("CF gives up on non-ASCII localization names before calling ICU")
    func nonASCIINamesDisableMatching() {
        #expect(LanguageMatcher.preferredLocalizations(from: ["Français", "fr"], preferences: ["fr"]) == ["Français"])
        #expect(LanguageMatcher.fallbackLanguages(available: ["fr", "Deutsch"], preferred: ["fr"]) == ["fr"])
        #expect(LanguageMatcher.fallbackLanguages(available: ["fr"], preferred: ["français"]) == nil)
    }

    // MARK: LocaleIdentifier

    @Test("canonicalisation: uloc_getBaseName-style case and separators")
    func canonicalisation() {
        #expect(LocaleIdentifier.canonical("zh-hant-hk") == "zh_Hant_HK")
        #expect(LocaleIdentifier.canonical("en-gb") == "en_GB")
        #expect(LocaleIdentifier.canonical("EN_us") == "en_US")
        #expect(LocaleIdentifier.canonical("es-419") == "es_419")
        #expect(LocaleIdentifier.canonical("sr-latn") == "sr_Latn")
        #expect(LocaleIdentifier.canonical("en_US.UTF-8") == "en_US")
        #expect(LocaleIdentifier.canonical("de_DE@collation=phonebook") == "de_DE")
        #expect(LocaleIdentifier.canonical("de-DE-u-co-phonebk") == "de_DE")
        #expect(LocaleIdentifier.canonical("en-US-x-twain") == "en_US")
        #expect(LocaleIdentifier.canonical("de-DE-1996") == "de_DE_1996")
        #expect(LocaleIdentifier.canonical("ca-valencia") == "ca__VALENCIA")
        #expect(LocaleIdentifier.canonical("en_US_POSIX") == "en_US_POSIX")
        // legacy names are not mapped, but ICU folds the language subtag's case
        #expect(LocaleIdentifier.canonical("English") == "english")
        #expect(LocaleIdentifier.canonical("Base") == "base")
        #expect(LocaleIdentifier.canonical("") == "")
    }

    @Test("fromPOSIX: strip codeset and modifier, C/POSIX/empty mean en")
    func fromPOSIX() {
        #expect(LocaleIdentifier.fromPOSIX("en_GB.UTF-8@euro") == "en-GB")
        #expect(LocaleIdentifier.fromPOSIX("de_DE.UTF-8") == "de-DE")
        #expect(LocaleIdentifier.fromPOSIX("fr_FR@euro") == "fr-FR")
        #expect(LocaleIdentifier.fromPOSIX("pt_BR") == "pt-BR")
        #expect(LocaleIdentifier.fromPOSIX("ja") == "ja")
        #expect(LocaleIdentifier.fromPOSIX("sr_RS@latin") == "sr-Latn-RS")
        #expect(LocaleIdentifier.fromPOSIX("C") == "en")
        #expect(LocaleIdentifier.fromPOSIX("C.UTF-8") == "en")
        #expect(LocaleIdentifier.fromPOSIX("POSIX") == "en")
        #expect(LocaleIdentifier.fromPOSIX("") == "en")
        #expect(LocaleIdentifier.fromPOSIX("en_GB:en") == nil)
        #expect(LocaleIdentifier.fromPOSIX("/usr/share/locale/x") == nil)
    }
}
