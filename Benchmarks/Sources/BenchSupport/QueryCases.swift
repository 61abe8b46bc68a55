@_spi(Engine) import BundleIndex
import Foundation

/// The same lookups three ways — bundleidx under a profile, Foundation's Bundle, and nothing at
/// all (for reads per query) — prepared once per benchmark process in the setup hook, so that
/// opening the index or parsing queries.jsonl is never timed.
public final class QueryCases: @unchecked Sendable {
    public let fixture: Fixture
    public let kind: String
    public let context: SearchContext
    /// The lookups of this kind, in queries.jsonl order.
    public let queries: [Query]
    public private(set) var indexed: [(bundle: IndexedBundle, query: Query)] = []
    public private(set) var foundation: [(bundle: Bundle, query: Query)] = []
    /// Store reads of each case, from IndexedBundle.storeReadCount (nil for `paths`, whose
    /// read count the library does not expose).
    public private(set) var reads: [Int]? = nil
    private var reader: IndexReader?

    /// The first `limit` lookups of `kind` in the fixture.
    public init(fixture: Fixture, kind: String, context: SearchContext, limit: Int = 256) {
        self.fixture = fixture
        self.kind = kind
        self.context = context
        self.queries = fixture.queries(ofKind: kind, limit: limit)
    }

    public var count: Int { indexed.count }

    public func prepareIndexed() throws {
        guard reader == nil else { return }
        let reader = try IndexReader(path: fixture.index)
        self.reader = reader
        var bundles: [String: IndexedBundle] = [:]
        for query in queries {
            if bundles[query.bundle] == nil {
                bundles[query.bundle] = try reader.bundle(atPath: query.bundle, context: context)
            }
            if let bundle = bundles[query.bundle] { indexed.append((bundle, query)) }
        }
        if kind != "paths" && kind != "localized" {
            reads = try indexed.map { try $0.bundle.storeReadCount(forResource: $0.query.name, ofType: $0.query.type,
                                                                     inDirectory: $0.query.directory) }
        }
    }

    public func prepareFoundation() {
        guard foundation.isEmpty else { return }
        var bundles: [String: Bundle] = [:]
        for query in queries {
            if bundles[query.bundle] == nil { bundles[query.bundle] = Bundle(path: query.bundle) }
            if let bundle = bundles[query.bundle] { foundation.append((bundle, query)) }
        }
    }

    /// One bundleidx lookup; returns something derived from the answer for blackHole. By
    /// default it is read from the index (a first ask: the in-memory answers of repeat asks are
    /// bypassed, so the engine is what is measured); `repeatAsk` goes through the public API,
    /// which answers a repeat ask from memory until the next commit.
    @inline(__always)
    public func indexedLookup(_ i: Int, repeatAsk: Bool = false) throws -> Int {
        let (bundle, q) = indexed[i % indexed.count]
        if q.name == nil {
            return try bundle.paths(forResourcesOfType: q.type, inDirectory: q.directory).count
        }
        let path: String?
        switch (q.localization, repeatAsk) {
        case (.some(let localization), false):
            path = try bundle.pathReadingIndex(forResource: q.name, ofType: q.type, inDirectory: q.directory,
                                               forLocalization: localization)
        case (.some(let localization), true):
            path = try bundle.path(forResource: q.name, ofType: q.type, inDirectory: q.directory, forLocalization: localization)
        case (.none, false):
            path = try bundle.pathReadingIndex(forResource: q.name, ofType: q.type, inDirectory: q.directory)
        case (.none, true):
            path = try bundle.path(forResource: q.name, ofType: q.type, inDirectory: q.directory)
        }
        return path?.utf8.count ?? 0
    }

    /// The same lookup through `withPath`, which hands out the path's bytes instead of a String.
    @inline(__always)
    public func indexedLookupBytes(_ i: Int) throws -> Int {
        let (bundle, q) = indexed[i % indexed.count]
        return try bundle.withPath(forResource: q.name, ofType: q.type, inDirectory: q.directory) { $0.count } ?? 0
    }

    @inline(__always)
    public func foundationLookup(_ i: Int) -> Int {
        let (bundle, q) = foundation[i % foundation.count]
        return Self.foundationAnswer(bundle, q)
    }

    /// The first lookup of a Bundle created just for it. CF keeps no bundle instance alive
    /// between iterations (none is loaded), but may keep process-wide directory caches: this is
    /// the cheapest "cold" Foundation can be inside one process.
    public func freshFoundationLookup(_ i: Int) -> Int {
        let q = queries[i % queries.count]
        guard let bundle = Bundle(path: q.bundle) else { return -1 }
        return Self.foundationAnswer(bundle, q)
    }

    private static func foundationAnswer(_ bundle: Bundle, _ q: Query) -> Int {
        if q.name == nil {
            return bundle.paths(forResourcesOfType: q.type, inDirectory: q.directory).count
        }
        if case .some(let localization) = q.localization {
            return bundle.path(forResource: q.name, ofType: q.type, inDirectory: q.directory,
                               forLocalization: localization)?.utf8.count ?? 0
        }
        return bundle.path(forResource: q.name, ofType: q.type, inDirectory: q.directory)?.utf8.count ?? 0
    }

    /// How many cases bundleidx (foundation-linux) answers differently from Foundation: the
    /// comparison is only fair when both do the same work. Printed to stderr, never fatal.
    public func mismatches() throws -> Int {
        try prepareIndexed()
        prepareFoundation()
        var differing = 0
        for (i, (bundle, q)) in indexed.enumerated() {
            let fb = foundation[i].bundle
            if q.name == nil {
                let a = try bundle.paths(forResourcesOfType: q.type, inDirectory: q.directory).sorted()
                let b = fb.paths(forResourcesOfType: q.type, inDirectory: q.directory).sorted()
                if a != b { differing += 1 }
            } else if case .some(let l) = q.localization {
                if try bundle.path(forResource: q.name, ofType: q.type, inDirectory: q.directory, forLocalization: l)
                    != fb.path(forResource: q.name, ofType: q.type, inDirectory: q.directory, forLocalization: l) {
                    differing += 1
                }
            } else if try bundle.path(forResource: q.name, ofType: q.type, inDirectory: q.directory)
                        != fb.path(forResource: q.name, ofType: q.type, inDirectory: q.directory) {
                differing += 1
            }
        }
        return differing
    }
}
