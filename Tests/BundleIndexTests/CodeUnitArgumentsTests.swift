// CF reads a lookup's arguments by code units: a `/` followed by a combining mark (U+0301) is
// still a slash, a type starting with "." and a combining mark still starts with a dot, and a
// name shaped like a DOS drive ("C:foo", no slash) loses its first two characters on every
// platform (`_CFCreateLastPathComponent`, `_hasDrive`). Swift's `Character` operations see
// none of these. Each answer here is compared with Foundation's `Bundle` on the same tree.
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Lookup arguments read by code units, as CF reads them", .serialized)
struct CodeUnitArgumentsTests {
    static let mark = "\u{301}"

    /// A flat bundle holding what the lookups below look for, indexed, and opened both ways.
    final class Pair {
        let root = makeTempDirectory(prefix: "code-units")
        let index: String
        let bundle: IndexedBundle
        let foundation: Bundle

        init(files: [String], infoPlist: [String: Any] = [:]) throws {
            index = root + "-index"
            let path = root + "/B.bundle"
            for file in files { EquivalentNamesTests.write("B.bundle/" + file, in: root) }
            if !infoPlist.isEmpty {
                let data = try PropertyListSerialization.data(fromPropertyList: infoPlist, format: .xml, options: 0)
                try data.write(to: URL(fileURLWithPath: path + "/Info.plist"))
            }
            try IndexBuilder.build(roots: [root], indexPath: index)
            bundle = try #require(try IndexReader(path: index).bundle(atPath: path, context: .foundationLinux))
            foundation = try #require(Bundle(path: path))
        }

        deinit {
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: index)
        }

        /// bundleidx's answer and Foundation's, equal by bytes (nil and nil are equal).
        func agree(_ name: String?, _ type: String?, _ directory: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
            let ours = try bundle.path(forResource: name, ofType: type, inDirectory: directory)
            let theirs = foundation.path(forResource: name, ofType: type, inDirectory: directory)
            #expect(ours.map { a in theirs.map { sameBytes(a, $0) } ?? false } ?? (theirs == nil),
                    "\(String(describing: name)) \(String(describing: type)) \(String(describing: directory)): \(String(describing: ours)) against Foundation's \(String(describing: theirs))",
                    sourceLocation: sourceLocation)
            return ours
        }
    }

    @Test("a name shaped like a DOS drive loses it, as in Foundation: \"C:foo\" is \"foo\"")
    func driveLetters() throws {
        let pair = try Pair(files: ["foo.png", "C:bar.png", "1:foo.png", "Cfoo.png"])
        #expect(try pair.agree("C:foo", "png") != nil)
        #expect(try pair.agree("z:foo", "png") != nil)
        #expect(try pair.agree("C:bar", "png") == nil, "the file named C:bar.png is not what C:bar asks for")
        #expect(try pair.agree("1:foo", "png") != nil, "a digit is no drive")
        #expect(try pair.agree("C:", "png") == nil, "two characters keep their drive")
        #expect(try pair.agree("C:foo.png", nil) != nil)
        #expect(try pair.agree("x/C:bar", "png") == nil, "after a slash the drive stays")
    }

    @Test("a slash before a combining mark splits a name and a subdirectory; a dot before one starts a type")
    func combiningMarks() throws {
        let m = Self.mark
        let pair = try Pair(files: ["dir/\(m)x.png", "a.\(m)png", "d/f.png", "foo.png", "d/\(m)x/in.png"])
        #expect(try pair.agree("dir/\(m)x", "png") != nil)
        #expect(try pair.agree("\(m)x", "png", "dir") != nil)
        #expect(try pair.agree("a", ".\(m)png") != nil)
        #expect(try pair.agree("f", "png", "d/\(m)x/..") != nil)
        #expect(try pair.agree("foo", "png", "d/\(m)x/..") == nil)
        #expect(try pair.agree("in", "png", "./d/\(m)x") != nil)
        let ours = try pair.bundle.paths(forResourcesOfType: "png", inDirectory: "d/\(m)x/..")
        let theirs = pair.foundation.paths(forResourcesOfType: "png", inDirectory: "d/\(m)x/..")
        #expect(ours.count == theirs.count && zip(ours.sorted(by: byteOrder), theirs.sorted(by: byteOrder)).allSatisfy { sameBytes($0, $1) },
                "\(ours) against Foundation's \(theirs)")
    }

    @Test("the development region is found among lproj names by bytes: localizations list it as Foundation does")
    func developmentRegionSpelledOtherwise() throws {
        let pair = try Pair(files: ["Base.lproj/a.strings", "Cafe\(Self.mark).lproj/a.strings"],
                            infoPlist: ["CFBundleDevelopmentRegion": "Caf\u{e9}"])
        let ours = pair.bundle.localizations, theirs = pair.foundation.localizations
        #expect(ours.count == theirs.count && zip(ours, theirs).allSatisfy { sameBytes($0, $1) }, "\(ours) against Foundation's \(theirs)")
        #expect(ours.count == 3)
    }
}
