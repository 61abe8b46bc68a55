// Info.plist files read through CF's objects directly (CoreFoundationPropertyList) against the
// bridged Foundation path they replace (PropertyListReader.foundationDictionary): the same
// dictionary or the same failure, on every property list of a real corpus and on generated ones.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Info.plist through CF's objects answers as through Foundation's")
struct PropertyListReaderTests {
    /// A comparable picture of a reader's answer.
    static func outcome(_ r: Result<[String: PropertyListValue], PropertyListReader.Failure>) -> String {
        switch r {
        case .success(let d): "\(PropertyListValue.dictionary(d))"
        case .failure(let f): "failure: \(f)"
        }
    }

    static func agree(_ bytes: [UInt8], gnustep: Bool = false) -> Bool {
        let direct = PropertyListReader.dictionary(from: bytes, gnustep: gnustep)
        let bridged = PropertyListReader.foundationDictionary(from: bytes, gnustep: gnustep)
        if case .success(let a) = direct, case .success(let b) = bridged { return a == b }
        return outcome(direct) == outcome(bridged)
    }

    static func decidedDirectly(_ bytes: [UInt8]) -> Bool {
        if case .leftToFoundation = CoreFoundationPropertyList.parse(bytes) { return false }
        return true
    }

    @Test("every Info.plist and InfoPlist.strings of a real corpus reads as through Foundation (tools/real-corpus DIR, then BUNDLEIDX_REAL_CORPUS=DIR)",
          .enabled(if: ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"] != nil, "no real corpus named"))
    func realPropertyLists() throws {
        var files = 0, direct = 0, differing: [String] = []
        let isInfo = { (path: String) in
            let name = (path as NSString).lastPathComponent.lowercased()
            return name.hasPrefix("info") && (name.hasSuffix(".plist") || name.hasSuffix(".strings"))
        }
        for (relative, bytes) in try StringsTableReaderTests.realCorpusFiles(where: isInfo) {
            files += 1
            if Self.decidedDirectly(bytes) { direct += 1 }
            let gnustep = (relative as NSString).lastPathComponent.lowercased() == "info-gnustep.plist"
            if !Self.agree(bytes, gnustep: gnustep) { differing.append(relative) }
        }
        #expect(files > 100 && direct * 10 >= files * 9, "CF's objects decided \(direct) of \(files)")
        #expect(differing.isEmpty, "\(differing.count) of \(files) differ: \(differing.prefix(10))")
    }

    @Test("XML, binary and OpenStep lists of every type (strings, integers at the edges, reals, bools, dates, data, arrays, nested dictionaries) read alike")
    func generatedPropertyLists() throws {
        var random = SeededRandom(state: 3)
        func value(_ depth: Int) -> Any {
            switch random.below(depth > 2 ? 7 : 9) {
            case 0: return random.pick(["", "plain", "caf\u{E9} \u{1F600}", "e\u{301}", "\u{0}", "<&>"])!
            case 1: return random.pick([0, 1, -1, 127, 128, 255, 256, 65_535, Int(Int32.max) + 1, Int.max, Int.min])!
            case 2: return random.pick([0.0, -0.5, 1e300, 3.25, Double.leastNonzeroMagnitude])!
            case 3: return random.below(2) == 0
            case 4: return Date(timeIntervalSince1970: Double(random.below(4_000_000_000)) - 1e9 + 0.25)
            case 5: return Data((0..<random.below(20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            case 6: return "k\(random.below(1000))"
            case 7: return (0..<random.below(4)).map { _ in value(depth + 1) }
            default: return Dictionary((0..<random.below(4)).map { ("key\($0)", value(depth + 1)) }, uniquingKeysWith: { a, _ in a })
            }
        }
        var differing = 0, direct = 0
        for i in 0..<400 {
            let top = Dictionary((0..<random.below(6)).map { ("CFBundle\($0)", value(0)) }, uniquingKeysWith: { a, _ in a })
            let format: PropertyListSerialization.PropertyListFormat = i % 2 == 0 ? .xml : .binary
            let data = try PropertyListSerialization.data(fromPropertyList: top, format: format, options: 0)
            if !Self.agree(Array(data)) { differing += 1 }
            if Self.decidedDirectly(Array(data)) { direct += 1 }
        }
        #expect(differing == 0)
        #expect(direct >= 350, "CF's objects decided \(direct) of 400")
        let texts = [
            "{ CFBundleName = Ink; NSTypes = ( { NSUnixExtensions = ( ink, txt ); }, \"two\" ); Data = <0a0b>; }",
            "<plist><dict><key>Big</key><integer>18446744073709551615</integer><key>Neg</key><integer>-9223372036854775808</integer></dict></plist>",
            "<plist><dict><key>D</key><date>2001-01-01T00:00:00Z</date><key>R</key><real>1.5</real><key>T</key><true/></dict></plist>",
            "<plist><array><string>not a dictionary</string></array></plist>",
            "\"a\" = \"b\";", "not a plist {", "",
            "{ e\u{301} = 1; \u{E9} = 2; }",
        ]
        for text in texts {
            #expect(Self.agree(Array(text.utf8)), "\(text)")
            #expect(Self.agree(Array(text.utf8), gnustep: true), "\(text)")
        }
    }
}
