// Bundle.localizedString(forKey:value:table:) from the index: the rules (docs/foundation-dropin.md,
// "Localized strings"), one test each, on one small bundle with every kind of table.
import Foundation
import Synchronization
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

/// Words.app: development region fr; tables global and in some lprojs, in every file format CF
/// reads, a .stringsdict beside a .strings, a platform variant, a folder named like a table.
func wordsFixture() throws -> BundleFixture {
    let fixture = try BundleFixture([
        "Words.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.words", "CFBundleDevelopmentRegion": "fr"]),
        "Words.app/Global.strings": "\"a\" = \"global a\";\n\"g\" = \"global g\";\n",
        "Words.app/fr.lproj/Global.strings": "\"a\" = \"fr a\";\n\"f\" = \"fr f\";\n",
        "Words.app/fr.lproj/Localizable.strings": "/* comment */\n\"hello\" = \"bonjour\";\n\"empty\" = \"\";\n\"quote\" = \"a \\\"b\\\"\\n\";\n",
        "Words.app/en.lproj/Localizable.strings": "\"hello\" = \"hello\";\n\"only-en\" = \"english\";\n",
        "Words.app/en.lproj/Menu.strings": "\"File\" = \"File\";\n",
        "Words.app/Base.lproj/Main.strings": "\"title\" = \"base title\";\n",
        // A table name with a folder part is a resource name with one.
        "Words.app/Sub/Deep.strings": "\"k\" = \"deep k\";\n",
        "Words.app/en.lproj/Main.strings": "\"title\" = \"english title\";\n",
        "Words.app/fr.lproj/Plural.strings": "\"s\" = \"from strings\";\n\"t\" = \"strings t\";\n",
        "Words.app/fr.lproj/Plural.stringsdict": """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>s</key><string>from stringsdict</string>
            <key>plural</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string></dict>
            </dict></plist>
            """,
        "Words.app/fr.lproj/Alone.stringsdict": "<plist version=\"1.0\"><dict><key>x</key><string>dict x</string></dict></plist>",
        "Words.app/fr.lproj/XML.strings": "<plist version=\"1.0\"><dict><key>k</key><string>xml k</string>"
            + "<key>number</key><integer>5</integer></dict></plist>",
        "Words.app/fr.lproj/Braces.strings": "{ \"k\" = \"braced k\"; }",
        "Words.app/fr.lproj/Broken.strings": "\"k\" = ",
        "Words.app/fr.lproj/Unicode.strings": "\"\u{E9}\" = \"one scalar\";\n\"e\u{301}\" = \"two scalars\";\n\"\u{1F600}\" = \"smile \u{1F600}\";\n",
        "Words.app/Platform.strings": "\"k\" = \"plain\";\n",
        "Words.app/Platform-linux.strings": "\"k\" = \"linux\";\n",
        "Words.app/Dir.strings/": "",
        // Small tables are stored in their table record, larger ones in chunks of entries.
        "Words.app/fr.lproj/Four.strings": (1...4).map { "\"k\($0)\" = \"four \($0)\";\n" }.joined(),
        "Words.app/fr.lproj/Many.strings": (1...300).map { "\"k\($0)\" = \"many \($0)\";\n" }.joined(),
        "Words.app/fr.lproj/Long.strings": "\"k1\" = \"\(String(repeating: "long ", count: 60))\";\n",
    ])
    let fr = fixture.root + "/Words.app/fr.lproj/"
    let utf16 = "\"k\" = \"utf16 k \u{E9}\";\n".data(using: .utf16)!   // with a byte-order mark
    #expect(FileManager.default.createFile(atPath: fr + "UTF16.strings", contents: utf16))
    let binary = try PropertyListSerialization.data(fromPropertyList: ["k": "binary k", "b": "binary b"], format: .binary, options: 0)
    #expect(FileManager.default.createFile(atPath: fr + "Binary.strings", contents: binary))
    try fixture.build()
    return fixture
}

/// Every table name of Words.app, nil and empty (Localizable) and an absent one.
let wordsTables: [String?] = [nil, "", "Localizable", "Global", "Menu", "Plural", "Alone", "XML", "Braces", "Broken",
                              "Unicode", "Platform", "Dir", "UTF16", "Binary", "Four", "Many", "Long", "Main", "Sub/Deep",
                              "Localizable.strings", "Nope"]
/// Keys whose values are not strings: Foundation on Linux crashes (a dictionary) or answers
/// garbage (a number) for them, so they are asked of the index only.
let crashingKeys: Set<String> = ["plural", "number"]

@Suite("Localized strings from the index")
struct LocalizedStringTests {
    @Test("the table the search finds first is the only one read: the global table hides the lproj's")
    func firstTableOnly() throws {
        let fixture = try wordsFixture()
        let words = try fixture.bundle("Words.app")
        #expect(try words.localizedString(forKey: "a", value: nil, table: "Global") == "global a")
        #expect(try words.localizedString(forKey: "f", value: nil, table: "Global") == "f")
        #expect(try words.localizedString(forKey: "hello", value: nil, table: "Localizable") == "bonjour")
        #expect(try words.localizedString(forKey: "only-en", value: nil, table: nil) == "only-en")
    }

    @Test("a missing key answers value, or the key when value is nil or empty")
    func missingKeyDefaults() throws {
        let words = try wordsFixture().bundle("Words.app")
        #expect(try words.localizedString(forKey: "nope", value: "fallback", table: nil) == "fallback")
        #expect(try words.localizedString(forKey: "nope", value: "", table: nil) == "nope")
        #expect(try words.localizedString(forKey: "nope", value: nil, table: nil) == "nope")
        #expect(try words.localizedStringEntry(forKey: "nope", table: nil) == nil)
        // A present key answers its entry, even an empty one, whatever value says.
        #expect(try words.localizedString(forKey: "empty", value: "fallback", table: nil) == "")
        #expect(try words.localizedString(forKey: "quote", value: nil, table: nil) == "a \"b\"\n")
    }

    @Test("nil and empty table names are Localizable; an absent table answers the defaults")
    func tableNames() throws {
        let words = try wordsFixture().bundle("Words.app")
        for table in [nil, "", "Localizable"] {
            #expect(try words.localizedString(forKey: "hello", value: nil, table: table) == "bonjour")
        }
        #expect(try words.localizedString(forKey: "hello", value: "v", table: "Nope") == "v")
        // Menu.strings is only in en.lproj, which Foundation on Linux does not search.
        #expect(try words.localizedString(forKey: "File", value: nil, table: "Menu") == "File")
        #expect(try words.localizedStringEntry(forKey: "File", table: "Menu") == nil)
        #expect(try words.localizedStringEntry(forKey: "File", table: "Menu", forLocalization: "en") == "File")
        #expect(try words.localizedStringEntry(forKey: "only-en", table: nil, forLocalization: "en") == "english")
        // Base.lproj follows the development region's folder: its table is found, en's is not.
        #expect(try words.localizedString(forKey: "title", value: nil, table: "Main") == "base title")
    }

    @Test(".stringsdict entries override the .strings table's; a plural entry answers its format key")
    func stringsdict() throws {
        let words = try wordsFixture().bundle("Words.app")
        #expect(try words.localizedString(forKey: "s", value: nil, table: "Plural") == "from stringsdict")
        #expect(try words.localizedString(forKey: "t", value: nil, table: "Plural") == "strings t")
        #expect(try words.localizedString(forKey: "plural", value: nil, table: "Plural") == "%#@n@")
        #expect(try words.localizedString(forKey: "x", value: nil, table: "Alone") == "dict x")
    }

    @Test("every file format CF reads: OpenStep text with and without braces, XML, binary, UTF-16")
    func formats() throws {
        let words = try wordsFixture().bundle("Words.app")
        #expect(try words.localizedString(forKey: "k", value: nil, table: "Braces") == "braced k")
        #expect(try words.localizedString(forKey: "k", value: nil, table: "XML") == "xml k")
        #expect(try words.localizedString(forKey: "b", value: nil, table: "Binary") == "binary b")
        #expect(try words.localizedString(forKey: "k", value: nil, table: "UTF16") == "utf16 k \u{E9}")
        // A file that does not parse, a folder named like a table: empty tables.
        #expect(try words.localizedString(forKey: "k", value: "v", table: "Broken") == "v")
        #expect(try words.localizedString(forKey: "k", value: "v", table: "Dir") == "v")
        // A value that is not a string is no answer (Foundation on Linux answers garbage).
        #expect(try words.localizedString(forKey: "number", value: "v", table: "XML") == "v")
    }

    @Test("keys and values keep every code unit: ASCII, accents and emoji as written, a lone surrogate as U+FFFD")
    func codeUnits() throws {
        // UTF-16LE with a byte-order mark; the second value holds an unpaired high surrogate,
        // which is no UTF-8 (the reader's UTF-8 fast path must fall back for it).
        var units: [UInt16] = [0xFEFF]
        units += Array("\"plain\" = \"abc\";\n\"caf\u{E9} \u{1F600}\" = \"\u{E9}t\u{E9} \u{1F600}\";\n\"lone\" = \"x".utf16)
        units += [0xD800]
        units += Array("y\";\n".utf16)
        let bytes = units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let entries = StringsTableReader.entries(from: bytes, dictionaryFile: false)
        let byKey = Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(byKey["plain"] == "abc")
        #expect(byKey["caf\u{E9} \u{1F600}"] == "\u{E9}t\u{E9} \u{1F600}")
        #expect(byKey["lone"] == "x\u{FFFD}y")
    }

    @Test("small tables (in their table record) and large ones (in chunks of entries) answer alike")
    func tableSizes() throws {
        let words = try wordsFixture().bundle("Words.app")
        for i in 1...4 { #expect(try words.localizedStringEntry(forKey: "k\(i)", table: "Four") == "four \(i)") }
        for i in [1, 150, 300] { #expect(try words.localizedStringEntry(forKey: "k\(i)", table: "Many") == "many \(i)") }
        #expect(try words.localizedStringEntry(forKey: "k1", table: "Long") == String(repeating: "long ", count: 60))
        for table in ["Four", "Many", "Long"] {
            #expect(try words.localizedStringEntry(forKey: "k0", table: table) == nil)
            #expect(try words.localizedStringEntry(forKey: "k301", table: table) == nil)
        }
    }

    @Test("one bundle asked from many threads at once answers every key right (the memo is shared)")
    func concurrentAsks() throws {
        let words = try wordsFixture().bundle("Words.app")
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<2000 {
                let k = (i * 7 + thread * 13) % 320 + 1   // k301…k320 are missing
                let expected = k <= 300 ? "many \(k)" : nil
                if (try? words.localizedStringEntry(forKey: "k\(k)", table: "Many")) != .some(expected) {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test("keys compare as CF compares them: no Unicode normalisation")
    func exactKeys() throws {
        let words = try wordsFixture().bundle("Words.app")
        #expect(try words.localizedString(forKey: "\u{E9}", value: nil, table: "Unicode") == "one scalar")
        #expect(try words.localizedString(forKey: "e\u{301}", value: nil, table: "Unicode") == "two scalars")
        #expect(try words.localizedString(forKey: "\u{1F600}", value: nil, table: "Unicode") == "smile \u{1F600}")
    }

    @Test("a table name is a resource name: a folder part finds a table in that folder")
    func tableNameWithFolder() throws {
        let words = try wordsFixture().bundle("Words.app")
        #expect(try words.localizedString(forKey: "k", value: nil, table: "Sub/Deep") == "deep k")
        #expect(try words.localizedString(forKey: "hello", value: "v", table: "Localizable.strings") == "v")
    }

    @Test("a platform variant of a table is the table, as for any resource")
    func platformVariant() throws {
        let words = try wordsFixture().bundle("Words.app")
        #expect(try words.localizedString(forKey: "k", value: nil, table: "Platform") == "linux")
    }

    @Test("verify reads the strings records: a table changed behind the index's back shows")
    func verifySeesTables() throws {
        let fixture = try wordsFixture()
        #expect(try IndexVerifier.verify(indexPath: fixture.indexPath, roots: [fixture.root]).isEmpty)
        try fixture.add(["Words.app/fr.lproj/Localizable.strings": "\"hello\" = \"salut\";\n"])
        let differences = try IndexVerifier.verify(indexPath: fixture.indexPath, roots: [fixture.root])
        #expect(differences.contains { $0.detail.hasPrefix("strings tables:") }, "\(differences)")
    }
}
