import Foundation

/// One lookup from gen-tree's queries.jsonl.
public struct Query: Sendable {
    public let bundle: String
    public let name: String?
    public let type: String?
    public let directory: String?
    public let kind: String
    /// `forLocalization:` — nil: not given (the 3-argument lookup); `.some(nil)`: given as nil.
    public let localization: String??
}

/// A benchmark fixture made by tools/bench-fixture: a generated tree, its queries and its index.
/// The benchmarks never build fixtures themselves (a 1M-resource tree takes minutes); they read
/// the directories listed in $BUNDLEIDX_BENCH_FIXTURES as `label=dir` pairs separated by commas.
public struct Fixture: Sendable {
    public let label: String
    public let directory: String
    public let resources: Int
    public let queries: [Query]

    public var tree: String { directory + "/tree" }
    public var index: String { directory + "/index" }

    /// The kinds benchmarked as single queries; "lproj" keeps only the lookups that the search
    /// list finds by itself (without forLocalization:), so that storeReadCount can count them;
    /// "localized" is gen-tree's lookups that name their localization (forLocalization:).
    public static let kinds = ["global", "lproj", "variant", "miss", "paths", "localized"]

    /// Up to `limit` queries of `kind`, in file order (deterministic: the fixture is seeded).
    public func queries(ofKind kind: String, limit: Int = 256) -> [Query] {
        if kind == "localized" {
            return Array(queries.lazy.filter { $0.localization != nil }.prefix(limit))
        }
        return Array(queries.lazy.filter { $0.kind == kind && $0.localization == nil }.prefix(limit))
    }

    public static func fromEnvironment() -> [Fixture] {
        guard let spec = ProcessInfo.processInfo.environment["BUNDLEIDX_BENCH_FIXTURES"], !spec.isEmpty else {
            return []
        }
        return spec.split(separator: ",").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            do {
                return try Fixture(label: parts[0], directory: parts[1])
            } catch {
                FileHandle.standardError.write(Data("fixture \(pair): \(error)\n".utf8))
                return nil
            }
        }
    }

    public init(label: String, directory: String) throws {
        self.label = label
        self.directory = directory
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/gen.json")))
        resources = (summary as? [String: Any])?["resources"] as? Int ?? 0
        let text = try String(contentsOfFile: directory + "/tree/queries.jsonl", encoding: .utf8)
        queries = text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let bundle = object["bundle"] as? String, let kind = object["kind"] as? String else { return nil }
            let localization: String?? = object.keys.contains("loc") ? .some(object["loc"] as? String) : .none
            return Query(bundle: bundle, name: object["name"] as? String, type: object["type"] as? String,
                         directory: object["dir"] as? String, kind: kind, localization: localization)
        }
    }
}
