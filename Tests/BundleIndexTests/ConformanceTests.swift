// Conformance with Foundation's `Bundle` on Linux, through the differential oracle.
//
// tools/conformance/prepare.sh builds tools/oracle/oracle.swift and writes, under
// <package>/.build/conformance (cached between runs; git-ignored with .build/):
//   gen/<seed>-<size>/{<Bundle>.<ext>/, expected.json}   random bundles from gen.py, all 8 layouts
//   scenarios/<S-id>/{<Bundle>.<ext>/, expected.json}    hand-made scenarios from scenarios.py
// expected.json = {"bundle": <bundle dir name>, "cases": [{"q": QUERY, "a": ANSWER}, ...], ...};
// query/answer format: docs/batch.md (the oracle's relative paths). Every bundle sits alone in its folder, and that
// folder is what we index as a root; the S10 folder has no bundle at all (answers: {"error":...}).
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
import BundleIndexJSON

// Linux only: the expected answers are those of swift-corelibs-foundation (the .foundationLinux
// profile); on Apple platforms the oracle would record Apple's Foundation instead.
@Suite("Conformance with Foundation's Bundle (differential oracle)", .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"),
       .enabled(if: Conformance.isLinux, "the oracle records Foundation-on-Linux answers"))
struct ConformanceTests {
    @Test("generated bundles (gen.py seeds)")
    func generatedSeeds() throws {
        let corpus = try Conformance.corpus.get()
        #expect(corpus.genFiles.count >= 24, "expected at least 24 generated seeds")
        let disagreements = Conformance.check(suite: "gen", files: corpus.genFiles)
        #expect(disagreements.isEmpty, "see the conformance[gen] lines above")
    }

    /// Issue 3: where the only localization is the development region, both profiles search the
    /// same folders, so the apple profile with languages = [dev region] on Linux must find
    /// exactly what Foundation finds.
    @Test("apple profile agrees on bundles whose only localization is the development region")
    func appleProfileOnDevOnlyBundles() throws {
        let corpus = try Conformance.corpus.get()
        #expect(corpus.devOnlyFiles.count >= 16, "expected the devonly seeds")
        let disagreements = Conformance.check(suite: "apple/devonly", files: corpus.devOnlyFiles, context: { doc in
            let dev = doc["developmentRegion"] as? String
            return .apple(languages: [dev ?? "en"], platform: .linux)
        }, ops: ["path", "url", "paths"])
        #expect(disagreements.isEmpty, "see the conformance[apple/devonly] lines above")
    }

    @Test("foundation-linux agrees on the devonly bundles too")
    func foundationOnDevOnlyBundles() throws {
        let corpus = try Conformance.corpus.get()
        let disagreements = Conformance.check(suite: "devonly", files: corpus.devOnlyFiles)
        #expect(disagreements.isEmpty, "see the conformance[devonly] lines above")
    }

    @Test("hand-made scenarios (scenarios.py --export)")
    func scenarios() throws {
        let corpus = try Conformance.corpus.get()
        #expect(!corpus.scenarioFiles.isEmpty, "no exported scenarios")
        let disagreements = Conformance.check(suite: "scenarios", files: corpus.scenarioFiles)
        #expect(disagreements.isEmpty, "see the conformance[scenarios] lines above")
    }
}

/// The expected.json files produced by prepare.sh.
struct ConformanceCorpus: Sendable {
    var genFiles: [String]
    var scenarioFiles: [String]
    /// Bundles whose only lproj is the development region (gen.py --only-dev-localization).
    var devOnlyFiles: [String]
}

struct PrepareFailure: Error, CustomStringConvertible {
    var description: String
}

/// One query whose answer differs from Foundation's (or a case file that could not be run).
struct Disagreement {
    var file: String
    var op: String
    var query: String
    var expected: String
    var actual: String
}

/// All disagreements of a suite. Its own type only so that a failing `#expect` reports a count
/// instead of dumping thousands of entries (the first ones are printed by `Conformance.check`).
struct Disagreements: CustomTestStringConvertible {
    var all: [Disagreement] = []
    var isEmpty: Bool { all.isEmpty }
    var testDescription: String { "\(all.count) answer(s) differ from Foundation" }
}

enum Conformance {
    #if os(Linux)
    static let isLinux = true
    #else
    static let isLinux = false
    #endif

    /// How many disagreements are printed per suite.
    static let printLimit = 40

    /// prepare.sh runs once per test process: a static `let` is initialised lazily and exactly once
    /// (thread-safe), and both tests share it.
    static let corpus: Result<ConformanceCorpus, PrepareFailure> = prepare()

    static let workdir = packageRoot + "/.build/conformance"

    private static func prepare() -> Result<ConformanceCorpus, PrepareFailure> {
        let script = packageRoot + "/tools/conformance/prepare.sh"
        let result: (status: Int32, stdout: String, stderr: String)
        do {
            result = try run(["bash", script, workdir], cwd: packageRoot)
        } catch {
            return .failure(PrepareFailure(description: "cannot run \(script): \(error)"))
        }
        guard result.status == 0 else {
            return .failure(PrepareFailure(description: """
                prepare.sh failed with status \(result.status)
                \(result.stdout.suffix(4000))\(result.stderr.suffix(4000))
                """))
        }
        print(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        return .success(ConformanceCorpus(genFiles: expectedFiles(in: workdir + "/gen"),
                                          scenarioFiles: expectedFiles(in: workdir + "/scenarios"),
                                          devOnlyFiles: expectedFiles(in: workdir + "/devonly")))
    }

    /// `<dir>/*/expected.json`, sorted by folder name.
    private static func expectedFiles(in dir: String) -> [String] {
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: dir)) ?? []
        return names.sorted().map { dir + "/" + $0 + "/expected.json" }
            .filter { fm.fileExists(atPath: $0) }
    }

    /// Answers every case of every file with the library, prints a summary and the first
    /// `printLimit` disagreements, and returns all disagreements.
    /// `context` picks the search context for a case file (its parsed expected.json); `ops`, when
    /// given, limits the comparison to those query kinds.
    static func check(suite: String, files: [String],
                      context: ([String: Any]) -> SearchContext = { _ in .foundationLinux },
                      ops: Set<String>? = nil) -> Disagreements {
        var total = 0
        var agreed = 0
        var disagreements: [Disagreement] = []
        for file in files {
            let result = checkFile(file, context: context, ops: ops)
            total += result.total
            agreed += result.total - result.disagreements.count
            disagreements += result.disagreements
        }
        for (i, d) in disagreements.prefix(printLimit).enumerated() {
            print("""
                conformance[\(suite)] #\(i + 1) \(relativeToWorkdir(d.file))
                  query:    \(d.query)
                  expected: \(d.expected)
                  actual:   \(d.actual)
                """)
        }
        if disagreements.count > printLimit {
            print("conformance[\(suite)]: … \(disagreements.count - printLimit) more disagreement(s)")
        }
        if !disagreements.isEmpty {
            let byOp = Dictionary(grouping: disagreements, by: \.op)
                .map { "\($0.key)=\($0.value.count)" }.sorted().joined(separator: " ")
            print("conformance[\(suite)]: disagreements by op: \(byOp)")
        }
        print("conformance[\(suite)]: \(agreed)/\(total) agree (\(files.count) bundle folders)")
        return Disagreements(all: disagreements)
    }

    /// Indexes the folder holding `file` (the bundle's parent) into a fresh index and asks every
    /// query of the file.
    private static func checkFile(_ file: String, context: ([String: Any]) -> SearchContext,
                                  ops: Set<String>?) -> (total: Int, disagreements: [Disagreement]) {
        let root = (file as NSString).deletingLastPathComponent
        guard let data = FileManager.default.contents(atPath: file),
              let doc = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let bundleName = doc["bundle"] as? String,
              let allCases = doc["cases"] as? [[String: Any]]
        else {
            return (1, [Disagreement(file: file, op: "-", query: "<read expected.json>",
                                     expected: "a valid case file", actual: "unreadable")])
        }
        let bundlePath = root + "/" + bundleName
        let cases = allCases.filter { c in
            ops.map { $0.contains((c["q"] as? [String: Any])?["op"] as? String ?? "") } ?? true
        }

        let scratch = makeTempDirectory(prefix: "bundleidx-conformance")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let engine: BatchQueryEngine
        do {
            _ = try IndexBuilder.build(roots: [root], indexPath: scratch + "/index")
            let reader = try IndexReader(path: scratch + "/index")
            // The oracle answers paths relative to the bundle root.
            engine = BatchQueryEngine(reader: reader, profile: context(doc), paths: .relativeToBundle)
        } catch {
            // Count every case of the file as failed: none of them could be asked.
            return (cases.count, cases.map { c in
                Disagreement(file: file, op: (c["q"] as? [String: Any])?["op"] as? String ?? "-",
                             query: "<build/open index of \(root)>",
                             expected: compactJSON(c["a"] ?? NSNull()), actual: "error: \(error)")
            })
        }

        // The oracle's `preferredFrom` without "from" starts from its canonical localization list
        // (lproj names sorted; tools/oracle/oracle.swift), ours from the bundle's list in this
        // machine's readdir order: the same list is given to both explicitly. Our default list
        // is compared with Foundation's own in RealSystemTests.
        let canonicalLocalizations = cases.first { ($0["q"] as? [String: Any])?["op"] as? String == "localizations" }?["a"]
        var disagreements: [Disagreement] = []
        for c in cases {
            let expected = c["a"] ?? NSNull()
            guard let q = c["q"] as? [String: Any] else {
                disagreements.append(Disagreement(file: file, op: "-", query: compactJSON(c),
                                                  expected: "a query object", actual: "-"))
                continue
            }
            // The oracle's query plus the absolute bundle path. `q` comes from JSONSerialization,
            // so a JSON null "loc" is an NSNull entry and stays present (-> forLocalization: nil),
            // while an absent "loc" stays absent (-> the 3-argument API); docs/batch.md.
            var query = q
            query["bundle"] = bundlePath
            if q["op"] as? String == "preferredFrom", q["from"] == nil, let list = canonicalLocalizations as? [String] {
                query["from"] = list
            }
            let line = compactJSON(query)
            let answer = engine.answer(jsonLine: line)
            let actual = try? JSONSerialization.jsonObject(with: Data(answer.utf8),
                                                           options: [.fragmentsAllowed])
            if let actual, oracleAgrees(expected: expected, actual: actual, op: q["op"] as? String) { continue }
            disagreements.append(Disagreement(
                file: file, op: q["op"] as? String ?? "-", query: compactJSON(q),
                expected: compactJSON(expected),
                actual: actual == nil ? "unparsable: \(answer)" : answer))
        }
        return (cases.count, disagreements)
    }

    /// One-line JSON text with sorted keys and unescaped slashes.
    static func compactJSON(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(
            withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return String(describing: value) }
        return String(decoding: data, as: UTF8.self)
    }

    private static func relativeToWorkdir(_ path: String) -> String {
        path.hasPrefix(workdir + "/") ? String(path.dropFirst(workdir.count + 1)) : path
    }
}
