// A real Linux system end to end (issue 15, item 4): GNUstep bundles as Debian installs them —
// a tree made here in Debian's shape, and (when apt-get can fetch them) Debian's own packages
// unpacked into a scratch prefix — built by the CLI and answered as Foundation answers.
import Foundation
import Testing
import BundleIndexFoundation
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("A real system end to end")
struct RealSystemTests {
    @Test("a Debian-shaped GNUstep system (split app and frameworks, a library resource folder) built by the CLI answers as Foundation")
    func debianShapedTree() throws {
        var files = RealLayoutTests.debianFiles
        for (path, content) in RealLayoutTests.libraryFiles where path.hasPrefix("Libraries/gnustep-base") {
            files["usr/share/GNUstep/" + path] = content
        }
        // A plug-in in the application's resources, behind the link.
        files["usr/share/GNUstep/Ink.app/Brushes.bundle/Resources/Info-gnustep.plist"] = "{ NSExecutable = Brushes; }"
        files["usr/share/GNUstep/Ink.app/Brushes.bundle/Resources/round.tiff"] = ""
        let f = try BundleFixture(files, links: RealLayoutTests.debianLinks)
        let built = try run([bundleidxBinary, "build", "--index", f.indexPath, f.root + "/usr/lib", f.root + "/usr/share"])
        #expect(built.status == 0 && !built.stderr.contains("warning"), "\(built.status) \(built.stderr)")
        let bundles = try f.reader().bundles().map(\.bundlePath)
        for expected in ["usr/lib/GNUstep/Applications/Ink.app", "usr/lib/GNUstep/Frameworks/Kit.framework",
                         "usr/share/GNUstep/Libraries/gnustep-base/Versions/1.28", "usr/share/GNUstep/Ink.app/Brushes.bundle"] {
            #expect(bundles.contains(f.root + "/" + expected), "\(expected) is not indexed: \(bundles)")
        }
        for bundle in bundles {
            let differences = try foundationDifferences(bundleAt: bundle, index: f.indexPath)
            #expect(differences.isEmpty, "\(bundle): \(differences)")
        }
        #expect(try f.bundle("usr/lib/GNUstep/Applications/Ink.app").rel("round", "tiff", dir: "Brushes.bundle/Resources")
                == "Resources/Brushes.bundle/Resources/round.tiff")
    }

    @Test("Debian's GNUstep packages unpacked into a scratch prefix: bundleidx build over its lib and share answers as Foundation",
          .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"),
          .enabled(if: DebianPackages.prefix != nil, "apt-get download could not fetch \(DebianPackages.names) (offline, no apt package lists, or not Debian)"))
    func debianPackages() throws {
        let prefix = try #require(DebianPackages.prefix)
        let index = makeTempDirectory(prefix: "debian-index")
        defer { try? FileManager.default.removeItem(atPath: index) }
        let built = try run([bundleidxBinary, "build", "--index", index, prefix + "/lib", prefix + "/share"])
        #expect(built.status == 0, "\(built.stderr)")
        let bundles = try IndexReader(path: index).bundles().map(\.bundlePath)
        for expected in ["lib/GNUstep/Applications/Charmap.app", "lib/GNUstep/Frameworks/Addresses.framework",
                         "share/GNUstep/Libraries/gnustep-base/Versions/1.28"] {
            #expect(bundles.contains(prefix + "/" + expected), "\(expected) is not indexed: \(bundles)")
        }
        for bundle in bundles {
            let differences = try foundationDifferences(bundleAt: bundle, index: index)
            #expect(differences.isEmpty, "\(bundle): \(differences)")
        }
        let charmap = try #require(try IndexReader(path: index).bundle(atPath: prefix + "/lib/GNUstep/Applications/Charmap.app",
                                                                     context: .foundationLinux))
        #expect(!charmap.localizations.isEmpty, "the split application's lproj folders lie behind its Resources link")
    }

    @Test("every bundle of a real corpus answers as Foundation, split applications and library folders included (tools/real-corpus DIR, then BUNDLEIDX_REAL_CORPUS=DIR)",
          .enabled(if: ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"] != nil, "no real corpus named"))
    func realCorpus() throws {
        let corpus = try #require(ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"])
        let index = makeTempDirectory(prefix: "real-corpus-index")
        defer { try? FileManager.default.removeItem(atPath: index) }
        let summary = try IndexBuilder.build(roots: [corpus], indexPath: index)
        // No warning for a valid file (issue 15, item 4). The only files that warn are the few
        // `.strings` tables lacking a `;` (GWorkspace's Hungarian one, ...), which CF reads no
        // table from either.
        for warning in summary.warnings {
            let path = try #require(warning.range(of: ": not a strings table Foundation can read").map { String(warning[..<$0.lowerBound]) },
                                    "\(warning)")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let entries = StringsTableReaderTests.withStandardErrorSilenced {
                StringsTableReader.propertyListEntries(from: bytes, dictionaryFile: false)
            }
            #expect(!bytes.isEmpty && entries.isEmpty, "\(path): CF reads \(entries.count) entries from it")
        }
        let bundles = Set(try IndexReader(path: index).bundles(under: corpus).map(\.bundlePath))
        // Every application and library resource folder Debian ships is a bundle of the index.
        var expected: [String] = []
        if let enumerator = FileManager.default.enumerator(atPath: corpus) {
            while let relative = enumerator.nextObject() as? String {
                let parts = relative.split(separator: "/")
                if (parts.count >= 2 && parts[parts.count - 2] == "Applications" && relative.hasSuffix(".app"))
                    || (parts.count >= 4 && parts[parts.count - 2] == "Versions" && parts[parts.count - 4] == "Libraries") {
                    expected.append(corpus + "/" + relative)
                }
            }
        }
        #expect(!expected.isEmpty)
        for path in expected { #expect(bundles.contains(path), "\(path) is not indexed") }
        var differing = 0
        for bundle in bundles.sorted() {
            let differences = try foundationDifferences(bundleAt: bundle, index: index)
            if !differences.isEmpty && differing < 10 { Issue.record("\(bundle): \(differences.prefix(5))") }
            differing += differences.isEmpty ? 0 : 1
        }
        #expect(differing == 0, "\(differing) of \(bundles.count) bundles answer otherwise than Foundation")
    }
}

extension RealSystemTests {
    @Test("every drop-in method of every bundle of a real corpus answers as Foundation's Bundle (tools/real-corpus DIR, then BUNDLEIDX_REAL_CORPUS=DIR)",
          .enabled(if: ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"] != nil, "no real corpus named"))
    func realCorpusDropIn() throws {
        let corpus = try #require(ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"])
        let index = makeTempDirectory(prefix: "real-corpus-dropin")
        defer { try? FileManager.default.removeItem(atPath: index) }
        _ = try IndexBuilder.build(roots: [corpus], indexPath: index)
        var tally = DropInTally()
        var bundles = 0
        for bundle in try IndexReader(path: index).bundles(under: corpus) {
            guard let reference = Bundle(path: bundle.bundlePath),
                  let dropIn = IndexedFoundationBundle(path: bundle.bundlePath, index: index) else { continue }
            #expect(dropIn.isIndexed, "\(bundle.bundlePath)")
            // The lookups a bundle's own files suggest: each by name and type (in its folder),
            // each lproj file for its localization, and the listing of every type.
            var cases: [[String: Any]] = []
            var types: Set<String> = [""]
            for file in filesBelow(reference.resourcePath ?? bundle.bundlePath, limit: 400).map(FileLookup.init) {
                types.insert(file.type)
                var query: [String: Any] = ["op": "path", "name": file.base, "type": file.type]
                if let subdirectory = file.subdirectory { query["dir"] = subdirectory }
                cases.append(["q": query])
                if let lproj = file.lproj {
                    cases.append(["q": ["op": "path", "name": file.base, "type": file.type, "loc": lproj]])
                }
            }
            for type in types.sorted() { cases.append(["q": ["op": "paths", "type": type]]) }
            tally.compare(dropIn, reference, cases: cases, file: bundle.bundlePath + "/files")
            bundles += 1
        }
        tally.report("real corpus, \(bundles) bundles")
        #expect(tally.mismatches.isEmpty, "see the dropin[real corpus …] lines above")
        #expect(bundles > 100)
    }
}

/// A few of Debian's GNUstep packages — a split application, a framework, gnustep-base's
/// resources — fetched with `apt-get download` and unpacked with `dpkg-deb -x` (nothing is
/// installed), into one folder of the temporary directory that later runs reuse.
enum DebianPackages {
    static let names = ["gnustep-base-common", "charmap.app", "charmap.app-common", "libaddresses0"]

    /// The unpacked `usr` folder, or nil when the packages could not be fetched.
    static let prefix: String? = {
        let scratch = FileManager.default.temporaryDirectory.path + "/bundleidx-test-debian-packages"
        let debsThere = (try? FileManager.default.contentsOfDirectory(atPath: scratch))?.filter { $0.hasSuffix(".deb") }
        if debsThere?.count == names.count, FileSystem.isDirectory(scratch + "/root/usr") { return scratch + "/root/usr" }
        try? FileManager.default.removeItem(atPath: scratch)
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        guard let fetched = try? run(["/usr/bin/apt-get", "download", "-q"] + names, cwd: scratch), fetched.status == 0,
              let debs = try? FileManager.default.contentsOfDirectory(atPath: scratch).filter({ $0.hasSuffix(".deb") }),
              debs.count == names.count else {
            try? FileManager.default.removeItem(atPath: scratch)
            return nil
        }
        for deb in debs {
            guard let unpacked = try? run(["/usr/bin/dpkg-deb", "-x", scratch + "/" + deb, scratch + "/root"]), unpacked.status == 0
            else { return nil }
        }
        return scratch + "/root/usr"
    }()
}
