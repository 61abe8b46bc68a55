// Data tables for LanguageMatcher (Apple's `ualoc_localizationsToUse`, pure Swift).
//
// Sources (facts transcribed, no code copied):
//  * appleAliasMap, appleParentMap, the languageGroup pairs and the "exempt from the
//    non-default-country penalty" list: swiftlang/swift-foundation-icu,
//    icuSources/common/ualoc.cpp (tables above `ualoc_normalize` / `ualoc_getParent`,
//    `LocaleIDInfo::initBaseNames`, `LocaleIDInfo::calcParentChain`).
//  * ICU language aliases (`metadata/alias/language`, consulted by `ualoc_normalize` after
//    appleAliasMap): a SUBSET of ICU's metadata.txt - the legacy two-letter codes and the
//    ISO 639-2 terminology/bibliographic ("overlong") and macrolanguage codes of the ~80
//    languages that realistically name an .lproj. Anything else is left unaliased.
//  * Parent locales (`ures_getLocParent`, consulted by `ualoc_getParent` after
//    appleParentMap): CLDR 45 supplemental parentLocales (main component), plus CLDR's
//    "nonlikelyScript" rule (lang_Script whose script is not the language's likely script
//    -> root), applied for the languages in `likely` below. Apple's shipped table is
//    generated from its own CLDR snapshot and may differ in detail (older CLDR had e.g.
//    en_CA -> en_001).
//  * Likely subtags (`uloc_minimizeSubtags`, used only to decide whether an available
//    localization names its language's default country): a SUBSET of CLDR likelySubtags -
//    default script/region for common languages, the lang_REGION entries whose script is
//    not the default, and the lang_Script entries whose region is not the default.
//    A language missing here is treated as "country is never the default".
enum LanguageData {

    // MARK: ualoc.cpp appleAliasMap (keys are uloc_getBaseName output, hence lower-case names)

    static let appleAliasMap: [String: String] = [
        "arabic": "ar", "chinese": "zh_Hans", "danish": "da", "dutch": "nl",
        "english": "en", "finnish": "fi", "french": "fr", "german": "de",
        "italian": "it", "japanese": "ja", "korean": "ko", "no_NO": "nb_NO",
        "norwegian": "nb", "polish": "pl", "portuguese": "pt", "russian": "ru",
        "spanish": "es", "swedish": "sv", "thai": "th", "turkish": "tr",
        "yue_CN": "yue_Hans_CN", "yue_HK": "yue_Hant_HK",
        "zh_CN": "zh_Hans_CN", "zh_HK": "zh_Hant_HK", "zh_MO": "zh_Hant_MO",
        "zh_SG": "zh_Hans_SG", "zh_TW": "zh_Hant_TW",
    ]

    // MARK: ICU metadata language aliases (subset, see header)

    static let icuLanguageAliases: [String: String] = {
        var map: [String: String] = [
            // legacy / deprecated two-letter codes
            "in": "id", "iw": "he", "ji": "yi", "jw": "jv", "mo": "ro", "sh": "sr_Latn",
            "tl": "fil", "tw": "ak", "bh": "bho",
            // macrolanguage and special replacements
            "cmn": "zh", "arb": "ar", "zsm": "ms", "swh": "sw", "pes": "fa", "ekk": "et",
            "lvs": "lv", "khk": "mn", "npi": "ne", "uzn": "uz", "azj": "az", "als": "sq",
            "ydd": "yi", "hbs": "sr_Latn", "prs": "fa_AF", "drw": "fa_AF", "swc": "sw_CD",
            "cnr": "sr_ME", "mol": "ro", "tgl": "fil",
        ]
        // ISO 639-2 three-letter codes (terminology and bibliographic) -> two-letter code
        let overlong = """
            afr af amh am ara ar aze az bel be ben bn bos bs bul bg cat ca ces cs cze cs \
            cym cy wel cy dan da deu de ger de ell el gre el eng en spa es est et eus eu \
            baq eu fas fa per fa fin fi fra fr fre fr gle ga glg gl guj gu heb he hin hi \
            hrv hr hun hu hye hy arm hy ind id isl is ice is ita it jpn ja kat ka geo ka \
            kaz kk khm km kan kn kor ko lao lo lit lt lav lv mkd mk mac mk mal ml mon mn \
            mar mr msa ms may ms mlt mt mya my bur my nob nb nep ne nld nl dut nl nno nn \
            nor no pan pa pol pl por pt pus ps ron ro rum ro rus ru sin si slk sk slo sk \
            slv sl sqi sq alb sq srp sr swe sv swa sw tam ta tel te tha th tur tr ukr uk \
            urd ur uzb uz vie vi yid yi zho zh chi zh zul zu
            """
        let words = overlong.split(separator: " ")
        var i = 0
        while i + 1 < words.count {
            map[String(words[i])] = String(words[i + 1])
            i += 2
        }
        return map
    }()

    // MARK: ualoc.cpp appleParentMap

    static let appleParentMap: [String: String] = {
        var map: [String: String] = [
            "ars": "ar", "en_150": "en_GB", "en_AU": "en_GB", "en_CY": "en_150",
            "en_GB": "en_001", "es_MX": "es_419",
            "wuu": "wuu_Hans", "wuu_Hans": "zh_Hans", "wuu_Hant": "zh_Hant",
            "yue": "yue_Hant", "yue_HK": "zh_Hant_HK", "yue_Hans": "zh_Hans",
            "yue_Hant": "yue_HK",
            "zh_HK": "zh_Hant", "zh_Hant": "zh_TW", "zh_Hant_HK": "zh_HK", "zh_TW": "root",
        ]
        let toGB = """
            AG AI BB BD BM BN BS BW BZ DG DM FJ FK GD GG GH GI GM GY HK IE IM IN IO JE JM KE \
            KI KN KY LC LK LS MO MS MT MU MV MW MY NA NG PK PN SB SC SD SG SH SL SS SZ TC TO \
            TT TV TZ UG VC VG VU ZA ZM ZW
            """
        for region in toGB.split(separator: " ") { map["en_\(region)"] = "en_GB" }
        for region in "CC CK CX NF NR NU NZ PG WS".split(separator: " ") { map["en_\(region)"] = "en_AU" }
        return map
    }()

    // MARK: CLDR 45 parentLocales (main component), '-' written as '_'

    static let cldrParentLocales: [String: String] = {
        var map: [String: String] = [
            "hi_Latn": "en_IN", "ht": "fr_HT", "nb": "no", "nn": "no", "no_NO": "no",
            "zh_Hant_MO": "zh_Hant_HK",
        ]
        let en001 = """
            150 AG AI AU BB BM BS BW BZ CC CK CM CX CY DG DM ER FJ FK FM GB GD GG GH GI GM GY \
            HK ID IE IL IM IN IO JE JM KE KI KN KY LC LR LS MG MO MS MT MU MV MW MY NA NF NG \
            NR NU NZ PG PK PN PW RW SB SC SD SG SH SL SS SX SZ TC TK TO TT TV TZ UG VC VG VU \
            WS ZA ZM ZW
            """
        for region in en001.split(separator: " ") { map["en_\(region)"] = "en_001" }
        for region in "AT BE CH DE DK FI NL SE SI".split(separator: " ") { map["en_\(region)"] = "en_150" }
        let es419 = "AR BO BR BZ CL CO CR CU DO EC GT HN JP MX NI PA PE PR PY SV US UY VE"
        for region in es419.split(separator: " ") { map["es_\(region)"] = "es_419" }
        for region in "AO CH CV FR GQ GW LU MO MZ ST TL".split(separator: " ") { map["pt_\(region)"] = "pt_PT" }
        let toRoot = """
            az_Arab az_Cyrl bal_Latn blt_Latn bm_Nkoo bs_Cyrl byn_Latn cu_Glag dje_Arab \
            dyo_Arab en_Dsrt en_Shaw ff_Adlm ff_Arab ha_Arab iu_Latn kk_Arab ks_Deva ku_Arab \
            kxv_Deva kxv_Orya kxv_Telu ky_Arab ky_Latn ml_Arab mn_Mong mni_Mtei ms_Arab \
            pa_Arab sat_Deva sd_Deva sd_Khoj sd_Sind shi_Latn so_Arab sr_Latn sw_Arab tg_Arab \
            ug_Cyrl uz_Arab uz_Cyrl vai_Latn wo_Arab yo_Arab yue_Hans zh_Hant
            """
        for id in toRoot.split(separator: " ") { map[String(id)] = "root" }
        return map
    }()

    // MARK: likely subtags (subset of CLDR likelySubtags, see header)

    /// language -> (likely script, likely region)
    static let likely: [String: (script: String, region: String)] = {
        let table = """
            af Latn ZA am Ethi ET ar Arab EG ars Arab SA as Beng IN ast Latn ES az Latn AZ \
            be Cyrl BY bg Cyrl BG bn Beng BD bo Tibt CN br Latn FR bs Latn BA ca Latn ES \
            chr Cher US ckb Arab IQ cs Latn CZ cy Latn GB da Latn DK de Latn DE dz Tibt BT \
            el Grek GR en Latn US eo Latn 001 es Latn ES et Latn EE eu Latn ES fa Arab IR \
            ff Latn SN fi Latn FI fil Latn PH fo Latn FO fr Latn FR fy Latn NL ga Latn IE \
            gd Latn GB gl Latn ES gsw Latn CH gu Gujr IN ha Latn NG haw Latn US he Hebr IL \
            hi Deva IN hr Latn HR hu Latn HU hy Armn AM id Latn ID ig Latn NG is Latn IS \
            it Latn IT iu Cans CA ja Jpan JP jv Latn ID ka Geor GE kk Cyrl KZ kl Latn GL \
            km Khmr KH kn Knda IN ko Kore KR ks Arab IN ku Latn TR ky Cyrl KG lb Latn LU \
            lo Laoo LA lt Latn LT lv Latn LV mi Latn NZ mk Cyrl MK ml Mlym IN mn Cyrl MN \
            mr Deva IN ms Latn MY mt Latn MT my Mymr MM nb Latn NO ne Deva NP nl Latn NL \
            nn Latn NO no Latn NO or Orya IN pa Guru IN pl Latn PL ps Arab AF pt Latn BR \
            rm Latn CH ro Latn RO ru Cyrl RU rw Latn RW sa Deva IN sd Arab PK se Latn NO \
            si Sinh LK sk Latn SK sl Latn SI so Latn SO sq Latn AL sr Cyrl RS sv Latn SE \
            sw Latn TZ ta Taml IN te Telu IN tg Cyrl TJ th Thai TH ti Ethi ET tk Latn TM \
            to Latn TO tr Latn TR tt Cyrl RU ug Arab CN uk Cyrl UA ur Arab PK uz Latn UZ \
            vi Latn VN wo Latn SN wuu Hans CN xh Latn ZA yo Latn NG yue Hant HK zh Hans CN \
            zu Latn ZA
            """
        let words = table.split(separator: " ")
        var map: [String: (script: String, region: String)] = [:]
        var i = 0
        while i + 2 < words.count {
            map[String(words[i])] = (String(words[i + 1]), String(words[i + 2]))
            i += 3
        }
        return map
    }()

    /// lang_REGION -> script, where that script is not the language's likely script.
    static let likelyScriptForRegion: [String: String] = {
        var map: [String: String] = [
            "az_IQ": "Arab", "az_IR": "Arab", "az_RU": "Cyrl", "ha_CM": "Arab", "ha_SD": "Arab",
            "kk_AF": "Arab", "kk_CN": "Arab", "kk_IR": "Arab", "kk_MN": "Arab", "ku_LB": "Arab",
            "ky_CN": "Arab", "ky_TR": "Latn", "mn_CN": "Mong", "ms_CC": "Arab", "pa_PK": "Arab",
            "sd_IN": "Deva", "sr_ME": "Latn", "sr_RO": "Latn", "sr_RU": "Latn", "sr_TR": "Latn",
            "tg_PK": "Arab", "ug_KZ": "Cyrl", "ug_MN": "Cyrl", "uz_AF": "Arab", "uz_CN": "Cyrl",
            "yue_CN": "Hans",
        ]
        for region in "AU BN GB GF HK ID MO PA PF PH SR TH TW US VN".split(separator: " ") {
            map["zh_\(region)"] = "Hant"
        }
        return map
    }()

    /// lang_Script -> region, where that region is not the language's likely region.
    static let likelyRegionForScript: [String: String] = [
        "az_Arab": "IR", "az_Cyrl": "AZ", "bs_Cyrl": "BA", "en_Dsrt": "US", "en_Shaw": "GB",
        "ff_Adlm": "GN", "ha_Arab": "NG", "iu_Latn": "CA", "kk_Arab": "CN", "ks_Deva": "IN",
        "ku_Arab": "IQ", "ky_Arab": "CN", "ky_Latn": "TR", "mn_Mong": "CN", "ms_Arab": "MY",
        "pa_Arab": "PK", "sd_Deva": "IN", "shi_Latn": "MA", "sr_Latn": "RS", "tg_Arab": "PK",
        "ug_Cyrl": "KZ", "uz_Arab": "AF", "uz_Cyrl": "UZ", "vai_Latn": "LR", "yue_Hans": "CN",
        "zh_Hant": "TW",
    ]

    // MARK: ualoc.cpp LocaleIDInfo::initBaseNames likeLanguages

    /// Languages compared as one group before walking parent chains.
    static let languageGroup: [String: String] = [
        "ars": "ar",
        "hi": "en",  // hi_Latn falls back to en_IN
        "nb": "no", "nn": "no",
        "wuu": "zh", "yue": "zh",
    ]

    /// `normalized` values that never get the non-default-country penalty
    /// (ualoc.cpp, LocaleIDInfo::calcParentChain).
    static let penaltyExempt: Set<String> = ["es_MX", "zh_Hant_TW"]
}
