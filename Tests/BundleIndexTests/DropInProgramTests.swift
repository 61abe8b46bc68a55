// Issue 13's promise about migrating a program: Examples/dropin/Indexed is Examples/dropin/
// Foundation with `Bundle(path:)` replaced by `IndexedFoundationBundle(path:)` (and the import
// that names it), and the two programs print the same, with the index and without one.
import Foundation
import Testing
import BundleIndex

@Suite("Drop-in: a program migrated by one line")
struct DropInProgramTests {
    private static func code(_ relative: String) throws -> [String] {
        try String(contentsOfFile: packageRoot + "/" + relative, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.hasPrefix("//") }
    }

    @Test("the two programs differ in the constructor and the import only")
    func oneLine() throws {
        let before = try Self.code("Examples/dropin/Foundation/main.swift")
        let after = try Self.code("Examples/dropin/Indexed/main.swift")
        let changed = after.difference(from: before)
        let removed = changed.removals.map { if case .remove(_, let line, _) = $0 { line } else { "" } }
        let inserted = changed.insertions.map { if case .insert(_, let line, _) = $0 { line } else { "" } }
        #expect(removed == ["    guard let bundle = Bundle(path: path) else {"])
        #expect(inserted.sorted() == ["    guard let bundle = IndexedFoundationBundle(path: path) else {",
                                      "import BundleIndexFoundation"])
    }

    @Test("they print the same for every example bundle, with the index and without one")
    func sameAnswers() throws {
        let examples = packageRoot + "/Examples"
        let bundles = ["Phone.app", "Notes.app", "Render.framework", "Notes.app/Contents/PlugIns/Export.plugin", "nothing.app"]
            .map { examples + "/" + $0 }
        let scratch = makeTempDirectory(prefix: "bundleidx-dropin-program")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        _ = try IndexBuilder.build(roots: [examples], indexPath: scratch + "/index")
        let foundation = try run([testHelperBinary("dropin-foundation")] + bundles)
        #expect(foundation.status == 0)
        #expect(foundation.stdout.contains("logo-linux.png") && foundation.stdout.contains("hello: Hello"),
                "the program asks real questions: \(foundation.stdout)")
        for index in [scratch + "/index", scratch + "/no-index-here"] {
            let indexed = try run([testHelperBinary("dropin-indexed")] + bundles, environment: ["BUNDLEIDX_INDEX": index])
            #expect(indexed.status == 0)
            #expect(Self.comparable(indexed.stdout) == Self.comparable(foundation.stdout), "index \(index)")
        }
    }

    /// The output with the one readdir-order answer blurred: on Linux `preferredLocalizations`
    /// is the first localization, which for lproj names is the first in readdir order, while the
    /// index lists them in byte order (docs/search-pattern.md, L-readdir-order;
    /// docs/foundation-dropin.md). Everything else must match byte for byte.
    private static func comparable(_ output: String) -> [String] {
        output.split(separator: "\n").map { line in
            // "  localizations ["a", "b"], preferred ["b"]": kept as it is unless the preferred
            // list is one of the localizations.
            guard let at = line.range(of: ", preferred ["), line.hasSuffix("]"),
                  let open = line.range(of: "localizations [") else { return String(line) }
            let all = line[open.upperBound..<at.lowerBound].dropLast().split(separator: ", ")
            let preferred = line[at.upperBound...].dropLast()
            guard all.contains(preferred) else { return String(line) }
            return String(line[..<at.lowerBound]) + ", preferred: one of them"
        }
    }
}
