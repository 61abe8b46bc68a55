@_spi(Engine) import BundleIndexCore

/// Answers `bundleidx query --batch` (docs/batch.md): one JSON request per line with a
/// `"bundle"` field and one of the differential oracle's operations, one JSON answer per line.
/// Paths in answers are absolute, the strings `bundleidx query BUNDLE NAME` prints; the oracle's
/// harness asks for paths relative to the bundle root instead (`PathForm.relativeToBundle`).
///
/// ```swift
/// let engine = BatchQueryEngine(reader: index, profile: .foundationLinux)
/// engine.answer(jsonLine: #"{"bundle":"com.example.phone","op":"path","name":"logo","type":"png"}"#)
/// // "/apps/Phone.app/logo-linux.png"
/// ```
///
/// One engine answers one stream of lines (it keeps buffers, opened bundles and, until the next
/// commit to the index, the answers it gave between them); it is not for several threads at once.
public final class BatchQueryEngine {
    /// How resource paths are spelled in answers (`path`, `url`, `paths`, `resourcePath`).
    public enum PathForm: Sendable {
        /// Absolute, as `IndexedBundle.path(forResource:…)` and `bundleidx query` spell them.
        case absolute
        /// Relative to the bundle root, `.` for the root itself: the differential oracle's form.
        case relativeToBundle
    }

    let reader: IndexReader
    let context: SearchContext
    let paths: PathForm
    /// The bundles opened, by the bytes of the `bundle` member that named them.
    private let bundles = ByteKeyedTable<IndexedBundle>(capacity: 4096, byteCapacity: 1 << 20)
    /// The index generation the cached bundles belong to: a watcher's batch may have changed
    /// their Info.plist or removed them, so they are opened again when it moves.
    private var generation: UInt64?
    /// The answers already given until the next commit, by line and by request (`Query.key`).
    let answers = LineAnswers()
    /// The key of the request being answered; its storage is reused from line to line.
    private var requestKey: [UInt8] = []
    /// The request being answered; its storage is reused from line to line.
    private var request = BatchRequest()

    /// Answers from `reader` under `profile`, with paths spelled as `paths` says.
    public init(reader: IndexReader, profile: SearchContext, paths: PathForm = .absolute) {
        self.reader = reader
        self.context = profile
        self.paths = paths
    }

    /// The answer to one request line (without the newline). A line that is not a request, or a
    /// request that cannot be answered, gives `{"error":"…"}`; nothing here traps on input.
    public func answer(jsonLine: String) -> String {
        var out = JSONOutput()
        var line = jsonLine
        line.withUTF8 { answer(line: $0, into: &out) }
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Appends the answer to `line` (its bytes without the newline) to `out`.
    func answer(line: UnsafeBufferPointer<UInt8>, into out: inout JSONOutput) {
        let mark = out.bytes.count
        // A line asked before, since the last commit, gets the bytes it got then (LineAnswers).
        answers.follow(newest: reader.newestTransactionID(), visible: { try? reader.visibleTransactionID() })
        // (A line too long to be kept is not hashed: no kept line has its length.)
        let hash = line.count <= LineAnswers.longestLine ? ByteKeyedTable<Range<Int>>.hash(line) : 0
        if let kept = answers.answer(toLine: line, hash: hash) { return answers.write(kept, into: &out) }
        do {
            try request.decode(line)
            let q = Query(request)
            // The same request spelled otherwise (members in another order, other whitespace or
            // escapes, members the engine ignores such as a client's request id) gets the
            // answer the first spelling got.
            q.key(into: &requestKey)
            let kept = try requestKey.withUnsafeBufferPointer { key -> Range<Int>? in
                let keyHash = ByteKeyedTable<Range<Int>>.hash(key)
                if let kept = answers.answer(toRequest: key, hash: keyHash) {
                    answers.write(kept, into: &out)
                    return kept
                }
                try answer(q, into: &out)
                guard let kept = answers.keep(out.bytes[mark...]) else { return nil }
                answers.remember(kept, request: key, hash: keyHash)
                return kept
            }
            if let kept { answers.remember(kept, line: line, hash: hash) }
        } catch {
            // Whatever was written before the failure is dropped: the line's answer is the error.
            out.bytes.removeSubrange(mark...)
            out.raw(#"{"error":"#)
            out.string(String(describing: error))
            out.byte(UInt8(ascii: "}"))
        }
    }

    /// A request that cannot be answered: a missing or mistyped field, an unknown op, a bundle
    /// the index does not hold.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    private func bundle(_ reference: String) throws -> IndexedBundle {
        let current = try reader.generation()
        if current != generation {
            bundles.removeAll()
            generation = current
        }
        var spelled = reference
        return try spelled.withUTF8 { bytes in
            let hash = ByteKeyedTable<IndexedBundle>.hash(bytes)
            if let known = bundles.value(for: bytes, hash: hash) { return known }
            // The reader's own table of bundles opened by path is left alone: this one is enough.
            guard let opened = try reader.bundle(reference, context: context, remembering: false) else {
                throw Refusal(description: notIndexedMessage(reference))
            }
            bundles.insert(opened, for: bytes, hash: hash)
            return opened
        }
    }

    private func answer(_ q: Query, into out: inout JSONOutput) throws {
        guard let opName = try q.string(.op) else { throw Refusal(description: "missing \"op\"") }
        guard let reference = try q.string(.bundle), !reference.isEmpty else { throw Refusal(description: "missing \"bundle\"") }
        let b = try bundle(reference)
        guard let op = Op(opName) else { throw Refusal(description: "unknown op \(opName)") }
        switch op {
        case .path, .url:
            let name = try q.string(.name), type = try q.string(.type), dir = try q.string(.dir)
            // A "loc" member, even null, asks the forLocalization: form; no member, the plain form.
            if op == .path && paths == .absolute {
                // Read from the index: a line asked again is answered by LineAnswers, so the
                // bundle's AnswerCache would only cost a hash and an insert per first ask.
                if q.has(.loc) {
                    let answer = try b.pathReadingIndex(forResource: name, ofType: type, inDirectory: dir,
                                                        forLocalization: try q.string(.loc))
                    if let answer { out.string(answer) } else { out.null() }
                } else if try b.withPath(forResource: name, ofType: type, inDirectory: dir, { out.string(utf8: $0) }) == nil {
                    out.null()
                }
                return
            }
            let hit: ResourceHit?
            if q.has(.loc) {
                hit = try b.resource(named: name, ofType: type, inDirectory: dir, forLocalization: try q.string(.loc))
            } else {
                hit = try b.resource(named: name, ofType: type, inDirectory: dir)
            }
            guard let hit else { return out.null() }
            if op == .path { return path(hit, into: &out) }
            out.raw(#"{"isDir":"#)
            out.bool(hit.isDirectory)
            out.raw(#","path":"#)
            path(hit, into: &out)
            out.byte(UInt8(ascii: "}"))
        case .paths:
            let type = try q.string(.type), dir = try q.string(.dir)
            let hits = q.has(.loc) ? try b.resources(ofType: type, inDirectory: dir, forLocalization: try q.string(.loc))
                : try b.resources(ofType: type, inDirectory: dir)
            out.byte(UInt8(ascii: "["))
            // Every absolute path starts with the same bundle path: escaped once.
            var prefix = JSONOutput()
            let bundlePath = hits.first?.bundlePath ?? ""
            if paths == .absolute { prefix.body(bundlePath) }
            for (i, hit) in hits.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                if paths == .absolute && hit.relativePath != "." && hit.bundlePath == bundlePath {
                    out.byte(JSONOutput.quote)
                    out.bytes.append(contentsOf: prefix.bytes)
                    out.byte(UInt8(ascii: "/"))
                    out.body(hit.relativePath)
                    out.byte(JSONOutput.quote)
                } else {
                    path(hit, into: &out)
                }
            }
            out.byte(UInt8(ascii: "]"))
        case .localizations: out.strings(b.localizations)
        case .dev: string(b.developmentLocalization, into: &out)
        case .preferred: out.strings(b.preferredLocalizations)
        case .preferredFrom:
            let prefs = try q.strings(.prefs)
            let from = try q.strings(.from) ?? b.localizations
            out.strings(IndexedBundle.preferredLocalizations(from: from, forPreferences: prefs, context: context))
        case .resourcePath:
            switch paths {
            case .absolute: out.string(b.resourcePath)
            case .relativeToBundle: out.string(b.layout.resourceDirectory.isEmpty ? "." : b.layout.resourceDirectory)
            }
        case .bundlePath: out.string(b.bundlePath)
        case .identifier: string(b.bundleIdentifier, into: &out)
        case .infoKeys: out.strings(b.infoDictionary.keys.sorted(by: JSONText.byteOrder))
        case .info:
            guard let key = try q.string(.key) else { throw Refusal(description: "missing \"key\"") }
            let local = try b.localizedInfoDictionary()
            JSONText.object([
                ("hasLocalizedDict", .bool(local != nil)),
                ("info", Self.json(b.infoDictionary[key])),
                ("localized", Self.json(local?[key])),
                ("object", Self.json(try b.object(forInfoDictionaryKey: key))),
            ]).write(to: &out)
        case .string:
            guard let key = try q.string(.key) else { throw Refusal(description: "missing \"key\"") }
            let table = try q.string(.table), value = try q.string(.value)
            out.string(q.has(.loc) ? try b.localizedString(forKey: key, value: value, table: table, forLocalization: try q.string(.loc))
                                   : try b.localizedString(forKey: key, value: value, table: table))
        }
    }

    /// A hit's path in the engine's form. The absolute form is written in two pieces, bundle path
    /// and relative path, which is `ResourceHit.path` without building it.
    private func path(_ hit: ResourceHit, into out: inout JSONOutput) {
        guard paths == .absolute else { return out.string(hit.relativePath) }
        if hit.relativePath == "." { return out.string(hit.bundlePath) }
        out.byte(JSONOutput.quote)
        out.body(hit.bundlePath)
        out.byte(UInt8(ascii: "/"))
        out.body(hit.relativePath)
        out.byte(JSONOutput.quote)
    }

    private func string(_ s: String?, into out: inout JSONOutput) {
        if let s { out.string(s) } else { out.null() }
    }

    /// Property-list values as the oracle writes them: reals and booleans tagged, because its
    /// JSON (Foundation's) cannot tell them from integers otherwise.
    static func json(_ v: PropertyListValue?) -> JSONText {
        v.map { JSONText($0, style: .tagged) } ?? .null
    }
}

/// The operations, named as the differential oracle names them.
private enum Op: CaseIterable {
    case path, url, paths, localizations, dev, preferred, preferredFrom, resourcePath, bundlePath, identifier, infoKeys, info, string

    /// The op `name` spells, compared byte for byte.
    init?(_ name: String) {
        guard let op = ShortName(name).flatMap({ n in Op.names.first { $0.0 == n }?.1 }) else { return nil }
        self = op
    }

    static let names: [(ShortName, Op)] = allCases.map { (ShortName(String(describing: $0))!, $0) }
}

/// The members of a request the engine reads, picked out in one pass (the last of a repeated
/// key wins); other members are ignored.
private struct Query {
    typealias Field = BatchRequest.ProtocolKey

    var bundle, op, name, type, dir, loc, key, prefs, from, table, value: BatchRequest.Value?
    /// Whether a string of the request holds U+0000 (only then are they searched for it).
    let containsNUL: Bool

    init(_ request: BatchRequest) {
        containsNUL = request.containsNUL
        for member in request.members {
            switch member.protocolKey {
            case .bundle?: bundle = member.value
            case .op?: op = member.value
            case .name?: name = member.value
            case .type?: type = member.value
            case .dir?: dir = member.value
            case .loc?: loc = member.value
            case .key?: key = member.value
            case .prefs?: prefs = member.value
            case .from?: from = member.value
            case .table?: table = member.value
            case .value?: value = member.value
            case nil: break
            }
        }
    }

    func value(_ field: Field) -> BatchRequest.Value? {
        switch field {
        case .bundle: bundle
        case .op: op
        case .name: name
        case .type: type
        case .dir: dir
        case .loc: loc
        case .key: key
        case .prefs: prefs
        case .from: from
        case .table: table
        case .value: value
        }
    }

    func has(_ field: Field) -> Bool { value(field) != nil }

    /// The members the engine reads, each as a kind and its bytes, into `key` (emptied first):
    /// two requests with the same key get the same answer, however their lines are spelled.
    /// Every value is written whole, so requests the engine tells apart have different keys;
    /// `null` is written as an absent member except for `loc`, the one member whose presence
    /// the engine asks (`has(.loc)`).
    func key(into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        func append(_ value: BatchRequest.Value) {
            switch value {
            case .null: key.append(1)
            case .string(let s):
                key.append(2)
                appendNumber(UInt64(s.utf8.count))
                key.append(contentsOf: s.utf8)
            case .number(let d):
                key.append(3)
                appendNumber(d.bitPattern)
            case .bool(let b): key.append(b ? 5 : 4)
            case .array(let elements):
                key.append(6)
                appendNumber(UInt64(elements.count))
                elements.forEach(append)
            }
        }
        func appendNumber(_ n: UInt64) {
            withUnsafeBytes(of: n.littleEndian) { key.append(contentsOf: $0) }
        }
        for field in Field.allCases {
            switch value(field) {
            case nil: key.append(0)
            case .null? where field != .loc: key.append(0)
            case let value?: append(value)
            }
        }
    }

    /// A string argument: a string, `null` or absent (both nil). Names, paths and languages may
    /// not hold U+0000 (a C API would cut them there).
    func string(_ field: Field) throws -> String? {
        switch value(field) {
        case nil, .null?: return nil
        case .string(let s)?:
            guard !(containsNUL && hasNUL(s)) else { throw BatchQueryEngine.Refusal(description: "\"\(field.name)\" contains a NUL character") }
            return s
        default: throw BatchQueryEngine.Refusal(description: "\"\(field.name)\" must be a string or null")
        }
    }

    /// An array of strings, `null` or absent (both nil).
    func strings(_ field: Field) throws -> [String]? {
        switch value(field) {
        case nil, .null?: return nil
        case .array(let elements)?:
            return try elements.map { element in
                guard case .string(let s) = element else {
                    throw BatchQueryEngine.Refusal(description: "\"\(field.name)\" must be an array of strings")
                }
                guard !(containsNUL && hasNUL(s)) else { throw BatchQueryEngine.Refusal(description: "\"\(field.name)\" contains a NUL character") }
                return s
            }
        default: throw BatchQueryEngine.Refusal(description: "\"\(field.name)\" must be an array of strings")
        }
    }
}

/// Whether `s` holds U+0000.
private func hasNUL(_ s: String) -> Bool {
    s.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? s.utf8.contains(0)
}

/// The bytes of a name of up to 16 bytes as two numbers and a length (`"op\u{0}"` is not `"op"`),
/// so that names compare in three steps; nil for a longer or an empty name (none of the protocol's).
private struct ShortName: Equatable {
    let low: UInt64, high: UInt64, count: Int

    init?(_ text: String) {
        var text = text
        guard let name = text.withUTF8({ ShortName(bytes: $0) }) else { return nil }
        self = name
    }

    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty && bytes.count <= 16 else { return nil }
        var low: UInt64 = 0, high: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { low |= UInt64(b) << (8 * i) } else { high |= UInt64(b) << (8 * (i - 8)) }
        }
        self.low = low
        self.high = high
        count = bytes.count
    }
}
