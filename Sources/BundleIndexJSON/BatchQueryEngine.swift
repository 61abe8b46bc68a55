import BundleIndex
import Foundation

/// Answers `bundleidx query --batch`: one JSON object per line with a `"bundle"` field and the
/// differential oracle's operations (docs/batch-queries.md), one JSON answer per line. Paths in answers
/// are relative to the bundle root, as the oracle's are.
///
/// ```swift
/// let engine = BatchQueryEngine(reader: index, profile: .foundationLinux)
/// engine.answer(jsonLine: #"{"bundle":"com.example.phone","op":"path","name":"logo","type":"png"}"#)
/// // "logo-linux.png"
/// ```
public final class BatchQueryEngine {
    let reader: IndexReader
    let context: SearchContext
    private var bundles: [String: IndexedBundle] = [:]
    /// The index generation the cached bundles belong to: a watcher's batch may have changed
    /// their Info.plist or removed them, so they are opened again when it moves.
    private var generation: UInt64?

    /// Answers from `reader` under `profile`.
    public init(reader: IndexReader, profile: SearchContext) {
        self.reader = reader
        self.context = profile
    }

    /// One answer for one query line. Malformed input gives `{"error": ...}`, never a crash.
    public func answer(jsonLine: String) -> String {
        let value: JSONText
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any] else {
                return JSONText.object([("error", .string("a query must be a JSON object"))]).description
            }
            value = try answer(object)
        } catch let e as BatchError {
            value = .object([("error", .string(e.message))])
        } catch {
            value = .object([("error", .string(String(describing: error)))])
        }
        return value.description
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

    private func answer(_ q: [String: Any]) throws -> JSONText {
        guard let op = q["op"] as? String else { throw BatchError(message: "missing \"op\"") }
        guard let ref = q["bundle"] as? String, !ref.isEmpty else { throw BatchError(message: "missing \"bundle\"") }
        let b = try bundle(ref)
        // A "loc" member, even null, asks the forLocalization: form; no member, the plain form.
        let localization: String?? = q.keys.contains("loc") ? .some(try optionalString(q, "loc")) : .none
        switch op {
        case "path", "url":
            let name = try optionalString(q, "name"), type = try optionalString(q, "type"), dir = try optionalString(q, "dir")
            let hit: ResourceHit?
            if case .some(let l) = localization {
                hit = try b.resource(named: name, ofType: type, inDirectory: dir, forLocalization: l)
            } else {
                hit = try b.resource(named: name, ofType: type, inDirectory: dir)
            }
            guard let hit else { return .null }
            return op == "path" ? .string(hit.relativePath)
                : .object([("isDir", .bool(hit.isDirectory)), ("path", .string(hit.relativePath))])
        case "paths":
            let type = try optionalString(q, "type"), dir = try optionalString(q, "dir")
            let hits: [ResourceHit]
            if case .some(let l) = localization {
                hits = try b.resources(ofType: type, inDirectory: dir, forLocalization: l)
            } else {
                hits = try b.resources(ofType: type, inDirectory: dir)
            }
            return .strings(hits.map(\.relativePath))
        case "localizations": return .strings(b.localizations)
        case "dev": return b.developmentLocalization.map(JSONText.string) ?? .null
        case "preferred": return .strings(b.preferredLocalizations)
        case "preferredFrom":
            let prefs = try optionalStrings(q, "prefs")
            let from = try optionalStrings(q, "from") ?? b.localizations
            return .strings(IndexedBundle.preferredLocalizations(from: from, forPreferences: prefs, context: context))
        case "resourcePath":
            return .string(b.layout.resourceDirectory.isEmpty ? "." : b.layout.resourceDirectory)
        case "bundlePath": return .string(b.bundlePath)
        case "identifier": return b.bundleIdentifier.map(JSONText.string) ?? .null
        case "infoKeys": return .strings(b.infoDictionary.keys.sorted(by: JSONText.byteOrder))
        case "info":
            guard let key = q["key"] as? String else { throw BatchError(message: "missing \"key\"") }
            let local = try b.localizedInfoDictionary()
            return .object([
                ("hasLocalizedDict", .bool(local != nil)),
                ("info", Self.json(b.infoDictionary[key])),
                ("localized", Self.json(local?[key])),
                ("object", Self.json(try b.object(forInfoDictionaryKey: key))),
            ])
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

    /// Property-list values as the oracle writes them: reals and booleans tagged, because its
    /// JSON (Foundation's) cannot tell them from integers otherwise.
    static func json(_ v: PropertyListValue?) -> JSONText {
        v.map { JSONText($0, style: .tagged) } ?? .null
    }
}
