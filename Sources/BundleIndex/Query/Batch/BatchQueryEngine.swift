import Foundation

/// Answers queries in the differential oracle's JSON format (docs/batch-queries.md), one JSON
/// object per line with a `"bundle"` field: what `bundleidx query --batch` speaks. Paths in
/// answers are relative to the bundle root, as the oracle's are.
public final class BatchQueryEngine {
    let reader: IndexReader
    let context: SearchContext
    private var bundles: [String: IndexedBundle] = [:]
    /// The index generation the cached bundles belong to: a watcher's batch may have changed
    /// their Info.plist or removed them, so they are opened again when it moves.
    private var generation: UInt64?

    public init(reader: IndexReader, profile: SearchContext) {
        self.reader = reader
        self.context = profile
    }

    /// One answer for one query line. Malformed input gives `{"error": ...}`, never a crash.
    public func answer(jsonLine: String) -> String {
        let value: Any
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any] else {
                return Self.encode(["error": "a query must be a JSON object"])
            }
            value = try answer(object)
        } catch let e as BatchError {
            value = ["error": e.message]
        } catch {
            value = ["error": String(describing: error)]
        }
        return Self.encode(value)
    }

    struct BatchError: Error { let message: String }

    private func bundle(_ reference: String) throws -> IndexedBundle {
        let current = try reader.generation()
        if current != generation {
            bundles = [:]
            generation = current
        }
        if let b = bundles[reference] { return b }
        guard let b = try reader.bundle(reference, context: context) else {
            throw BatchError(message: "bundle not in the index: \(reference)")
        }
        bundles[reference] = b
        return b
    }

    private func answer(_ q: [String: Any]) throws -> Any {
        guard let op = q["op"] as? String else { throw BatchError(message: "missing \"op\"") }
        guard let ref = q["bundle"] as? String, !ref.isEmpty else { throw BatchError(message: "missing \"bundle\"") }
        let b = try bundle(ref)
        let loc: ResourceLookup.Localization = q.keys.contains("loc") ? .given(try optionalString(q, "loc")) : .unspecified
        switch op {
        case "path", "url":
            let name = try optionalString(q, "name"), type = try optionalString(q, "type"), dir = try optionalString(q, "dir")
            let hit: ResourceHit?
            if case .given(let l) = loc {
                hit = try b.resource(named: name, ofType: type, inDirectory: dir, forLocalization: l)
            } else {
                hit = try b.resource(named: name, ofType: type, inDirectory: dir)
            }
            guard let hit else { return NSNull() }
            return op == "path" ? hit.relativePath : ["path": hit.relativePath, "isDir": hit.isDirectory] as [String: Any]
        case "paths":
            let type = try optionalString(q, "type"), dir = try optionalString(q, "dir")
            let hits: [ResourceHit]
            if case .given(let l) = loc {
                hits = try b.resources(ofType: type, inDirectory: dir, forLocalization: l)
            } else {
                hits = try b.resources(ofType: type, inDirectory: dir)
            }
            return hits.map(\.relativePath)
        case "localizations": return b.localizations
        case "dev": return b.developmentLocalization ?? NSNull()
        case "preferred": return b.preferredLocalizations
        case "preferredFrom":
            let prefs = try optionalStrings(q, "prefs")
            let from = try optionalStrings(q, "from") ?? b.localizations
            return IndexedBundle.preferredLocalizations(from: from, forPreferences: prefs, context: context)
        case "resourcePath":
            return b.record.layout.resourceDirectory.isEmpty ? "." : b.record.layout.resourceDirectory
        case "bundlePath": return b.bundlePath
        case "identifier": return b.bundleIdentifier ?? NSNull()
        case "infoKeys": return b.infoDictionary.keys.sorted(by: byteOrder)
        case "info":
            guard let key = q["key"] as? String else { throw BatchError(message: "missing \"key\"") }
            let local = try b.localizedInfoDictionary()
            return [
                "object": Self.json(try b.object(forInfoDictionaryKey: key)),
                "info": Self.json(b.infoDictionary[key]),
                "localized": Self.json(local?[key]),
                "hasLocalizedDict": local != nil,
            ] as [String: Any]
        default:
            throw BatchError(message: "unknown op \(op)")
        }
    }

    private func optionalString(_ q: [String: Any], _ key: String) throws -> String? {
        guard let v = q[key], !(v is NSNull) else { return nil }
        guard let s = v as? String else { throw BatchError(message: "\"\(key)\" must be a string or null") }
        guard !s.utf8.contains(0) else { throw BatchError(message: "\"\(key)\" contains a NUL byte") }
        return s
    }

    private func optionalStrings(_ q: [String: Any], _ key: String) throws -> [String]? {
        guard let v = q[key], !(v is NSNull) else { return nil }
        guard let a = v as? [Any], let s = a as? [String] else { throw BatchError(message: "\"\(key)\" must be an array of strings") }
        return s
    }

    /// Property-list values in the oracle's JSON spelling.
    static func json(_ v: PropertyListValue?) -> Any {
        guard let v else { return NSNull() }
        switch v {
        case .string(let s): return s
        case .integer(let i): return i
        case .real(let d): return ["$real": d]
        case .bool(let b): return ["$bool": b]
        case .date(let d): return ["$date": d]
        case .data(let d): return ["$data": Data(d).base64EncodedString()]
        case .array(let a): return a.map { json($0) }
        case .dictionary(let d): return d.mapValues { json($0) }
        }
    }

    static func encode(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else {
            return "{\"error\":\"unencodable answer\"}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
