// The apple profile: the documented search pattern with the user's languages, platform and
// device (docs/search-pattern.md), one rule per test; each test name starts with the section
// it checks.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("apple profile")
struct AppleProfileTests {
    static let app = [
        "A.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"]),
        "A.app/Contents/Resources/global.txt": "",
        "A.app/Contents/Resources/en.lproj/a.txt": "", "A.app/Contents/Resources/en.lproj/g.strings": "",
        "A.app/Contents/Resources/en_GB.lproj/a.txt": "", "A.app/Contents/Resources/en_GB.lproj/gb.txt": "",
        "A.app/Contents/Resources/fr.lproj/a.txt": "", "A.app/Contents/Resources/fr.lproj/f.txt": "",
        "A.app/Contents/Resources/fr.lproj/f.strings": "",
        "A.app/Contents/Resources/Base.lproj/a.txt": "", "A.app/Contents/Resources/Base.lproj/base.txt": "",
        "A.app/Contents/Resources/Base.lproj/en.txt": "", "A.app/Contents/Resources/en.lproj/en.txt": "",
    ]

    @Test("The language search list: best match, its fallbacks, the development region")
    func searchLists() throws {
        let f = try BundleFixture(Self.app)
        #expect(try f.bundle("A.app", context: .apple(languages: ["en-GB"])).languageSearchList == ["en_GB", "en"])
        #expect(try f.bundle("A.app", context: .apple(languages: ["de", "fr"])).languageSearchList == ["fr", "en"])
        #expect(try f.bundle("A.app", context: .apple(languages: ["ja"])).languageSearchList == ["en"])
        #expect(try f.bundle("A.app", context: .apple(languages: ["en-IN"])).languageSearchList == ["en_GB", "en"])
    }

    @Test("Search order: global, S0, Base.lproj, then S1…Sn")
    func lookupOrder() throws {
        let b = try BundleFixture(Self.app).bundle("A.app", context: .apple(languages: ["en-GB"]))
        #expect(try b.rel("global", "txt") == "Contents/Resources/global.txt")
        #expect(try b.rel("a", "txt") == "Contents/Resources/en_GB.lproj/a.txt")
        #expect(try b.rel("base", "txt") == "Contents/Resources/Base.lproj/base.txt")
        #expect(try b.rel("en", "txt") == "Contents/Resources/Base.lproj/en.txt", "Base.lproj comes before the language fallback")
        #expect(try b.rel("g", "strings") == "Contents/Resources/en.lproj/g.strings")
        #expect(try b.rel("f", "txt") == nil, "a language the user does not prefer is not searched")
        let fr = try BundleFixture(Self.app).bundle("A.app", context: .apple(languages: ["fr-CA"]))
        #expect(try fr.rel("f", "txt") == "Contents/Resources/fr.lproj/f.txt")
        #expect(try fr.rel("g", "strings") == "Contents/Resources/en.lproj/g.strings", "the development region is the last step")
    }

    @Test("Type hiding: a type found in S0 or Base is not taken from later lprojs")
    func typeHiding() throws {
        let b = try BundleFixture(Self.app).bundle("A.app", context: .apple(languages: ["fr"]))
        // fr has .strings, so en's .strings are hidden; .txt is in fr and Base.
        #expect(try b.rels("strings") == ["Contents/Resources/fr.lproj/f.strings"])
        let gb = try BundleFixture(Self.app).bundle("A.app", context: .apple(languages: ["en-GB"]))
        // en_GB and Base have no .strings: they come from en (S1).
        #expect(try gb.rels("strings") == ["Contents/Resources/en.lproj/g.strings"])
    }

    static let variants = [
        "V.app/Info.plist": infoPlist(["CFBundleIdentifier": "v"]),
        "V.app/icon.png": "", "V.app/icon~ipad.png": "", "V.app/icon-iphoneos.png": "",
        "V.app/icon-iphoneos~ipad.png": "", "V.app/icon~iphone.png": "",
        "V.app/logo.png": "", "V.app/logo-macos.png": "", "V.app/logo~ipad.png": "", "V.app/logo-linux.png": "",
        "V.app/only~ipad.png": "", "V.app/flag.png": "", "V.app/en.lproj/flag~ipad.png": "",
    ]

    @Test("Variants in one directory: on an iPad n-plat~dev > n~dev > n-plat > n")
    func deviceVariants() throws {
        let f = try BundleFixture(Self.variants)
        let ipad = try f.bundle("V.app", context: .apple(languages: ["en"], platform: .ios, device: .ipad))
        #expect(try ipad.rel("icon", "png") == "icon-iphoneos~ipad.png")
        #expect(try ipad.rel("only", "png") == "only~ipad.png")
        #expect(try ipad.rel("logo", "png") == "logo~ipad.png")
        let iphone = try f.bundle("V.app", context: .apple(languages: ["en"], platform: .ios, device: .iphone))
        #expect(try iphone.rel("icon", "png") == "icon~iphone.png")
        #expect(try iphone.rel("only", "png") == nil)
        let ipod = try f.bundle("V.app", context: .apple(languages: ["en"], platform: .ios, device: .ipod))
        #expect(try ipod.rel("icon", "png") == "icon~iphone.png", "ipod counts as iphone")
        let ios = try f.bundle("V.app", context: .apple(languages: ["en"], platform: .ios))
        #expect(try ios.rel("icon", "png") == "icon-iphoneos.png", "no device: only the platform variant applies")
    }

    @Test("Variants in one directory: device modifiers apply per directory, never across directories")
    func variantsDoNotCrossDirectories() throws {
        let ipad = try BundleFixture(Self.variants).bundle("V.app", context: .apple(languages: ["en"], platform: .ios, device: .ipad))
        #expect(try ipad.rel("flag", "png") == "flag.png")
    }

    @Test("Platform and device variants: on macOS and Linux device modifiers mean nothing, the platform suffix does")
    func platformVariants() throws {
        let f = try BundleFixture(Self.variants)
        let mac = try f.bundle("V.app", context: .apple(languages: ["en"], platform: .macos, device: .ipad))
        #expect(mac.context.device == nil)
        #expect(try mac.rel("logo", "png") == "logo-macos.png")
        #expect(try mac.rel("icon", "png") == "icon.png")
        let linux = try f.bundle("V.app", context: .apple(languages: ["en"]))
        #expect(try linux.rel("logo", "png") == "logo-linux.png")
    }

    @Test("Platform and device keys: the best override for the platform and device wins, others are removed")
    func infoOverrides() throws {
        let f = try BundleFixture(["I.app/Info.plist": infoPlist([
            "CFBundleIdentifier": "i", "CFBundleIdentifier~ipad": "never", "Name": "plain", "Name~ipad": "tablet",
            "Name-iphoneos": "ios", "Name-iphoneos~ipad": "ios tablet", "Name~iphone": "phone", "Other-macos": "mac",
            "Dash-Key": "dash", "Tilde~Key": "tilde",
        ])])
        let ipad = try f.bundle("I.app", context: .apple(languages: ["en"], platform: .ios, device: .ipad))
        #expect(ipad.infoDictionary["Name"] == .string("ios tablet"))
        #expect(ipad.infoDictionary["Name~ipad"] == nil && ipad.infoDictionary["Name~iphone"] == nil)
        #expect(ipad.bundleIdentifier == "i", "CFBundleIdentifier is never overridden")
        #expect(ipad.infoDictionary["Dash-Key"] == .string("dash"), "keys naming no supported platform stay")
        #expect(ipad.infoDictionary["Other-macos"] == .string("mac"), "macos is not an iOS platform name")
        let iphone = try f.bundle("I.app", context: .apple(languages: ["en"], platform: .ios, device: .iphone))
        #expect(iphone.infoDictionary["Name"] == .string("phone"))
        let mac = try f.bundle("I.app", context: .apple(languages: ["en"], platform: .macos))
        #expect(mac.infoDictionary["Name"] == .string("plain"))
        #expect(mac.infoDictionary["Other"] == .string("mac") && mac.infoDictionary["Other-macos"] == nil)
        let linux = try f.bundle("I.app", context: .foundationLinux)
        #expect(linux.infoDictionary["Name~ipad"] == .string("tablet"), "foundation-linux keeps keys verbatim (L-literal-keys)")
    }

    @Test("Which Info.plist file is read: platform Info.plist, GNUstep's Info-gnustep.plist, and a lower-case info.plist")
    func infoPlistFiles() throws {
        let f = try BundleFixture([
            "M.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "plain"]),
            "M.app/Contents/Info-macos.plist": infoPlist(["CFBundleIdentifier": "mac"]),
            "G.app/Resources/Info-gnustep.plist": infoPlist(["CFBundleIdentifier": "org.gnustep.g"]),
            "G.app/Resources/x.txt": "",
            "L.app/info.plist": infoPlist(["CFBundleIdentifier": "lower"]),
        ])
        #expect(try f.bundle("M.app", context: .apple(languages: ["en"], platform: .macos)).bundleIdentifier == "mac")
        #expect(try f.bundle("M.app", context: .apple(languages: ["en"])).bundleIdentifier == "plain")
        #expect(try f.bundle("G.app", context: .apple(languages: ["en"])).bundleIdentifier == "org.gnustep.g")
        #expect(try f.bundle("G.app", context: .foundationLinux).bundleIdentifier == nil)
        #expect(try f.bundle("L.app", context: .apple(languages: ["en"])).bundleIdentifier == "lower", "L-info-plist-case: the apple profile reads the matched file")
        #expect(try f.reader().bundle(identifier: "org.gnustep.g", context: .apple(languages: ["en"])) != nil)
    }

    @Test("Localized Info dictionary: localized Info.plist values, falling back to Info.plist")
    func localizedInfo() throws {
        let f = try BundleFixture([
            "S.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "s", "CFBundleName": "S", "CFBundleDevelopmentRegion": "en"]),
            "S.app/Contents/Resources/en.lproj/InfoPlist.strings": "\"CFBundleName\" = \"English\";\n",
            "S.app/Contents/Resources/fr.lproj/InfoPlist.strings": "\"CFBundleName\" = \"Français\";\n",
        ])
        let fr = try f.bundle("S.app", context: .apple(languages: ["fr-FR"]))
        #expect(try fr.object(forInfoDictionaryKey: "CFBundleName") == .string("Français"))
        #expect(try fr.object(forInfoDictionaryKey: "CFBundleIdentifier") == .string("s"), "falls back to Info.plist")
        let de = try f.bundle("S.app", context: .apple(languages: ["de"]))
        #expect(try de.object(forInfoDictionaryKey: "CFBundleName") == .string("English"))
    }

    @Test("Preferred localizations: preferredLocalizations(from:forPreferences:) uses the matcher")
    func preferredFrom() {
        let ctx = SearchContext.apple(languages: ["en-IN"])
        #expect(IndexedBundle.preferredLocalizations(from: ["en", "en_GB", "en_AU"], forPreferences: nil, context: ctx) == ["en_GB", "en"])
        #expect(IndexedBundle.preferredLocalizations(from: ["en", "fr", "de"], forPreferences: ["de"], context: ctx) == ["de"])
        #expect(IndexedBundle.preferredLocalizations(from: ["en", "fr", "de"], forPreferences: ["de"], context: .foundationLinux) == ["en"], "Linux: from[0]")
    }

    @Test("user languages from LANGUAGE, LC_ALL, LC_MESSAGES, LANG")
    func environmentLanguages() {
        #expect(SearchContext.environmentLanguages(["LANGUAGE": "fr_CA:fr:en", "LANG": "de_DE.UTF-8"]) == ["fr-CA", "fr", "en"])
        #expect(SearchContext.environmentLanguages(["LC_ALL": "en_GB.UTF-8@euro", "LANG": "de_DE"]) == ["en-GB"])
        #expect(SearchContext.environmentLanguages(["LC_MESSAGES": "pt_BR.UTF-8", "LANG": "de_DE"]) == ["pt-BR"])
        #expect(SearchContext.environmentLanguages(["LANG": "C.UTF-8"]) == ["en"])
        #expect(SearchContext.environmentLanguages(["LANG": "POSIX"]) == ["en"])
        #expect(SearchContext.environmentLanguages([:]) == ["en"])
    }

    @Test("apple lookups stay within the search pattern's steps (read bound)")
    func readBound() throws {
        let b = try BundleFixture(Self.app).bundle("A.app", context: .apple(languages: ["en-GB"]))
        // global, en_GB, Base, en
        #expect(try b.readsForLookup(name: "nothing", type: "txt", subdirectory: nil) == 4)
        #expect(try b.readsForLookup(name: "global", type: "txt", subdirectory: nil) == 1)
    }
}
