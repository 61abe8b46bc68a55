import Synchronization

/// The answers of single path lookups already made on one bundle (under one context), valid for
/// one LMDB transaction: every commit — a `build`, a watcher's batch, anything written to the
/// index — moves the newest transaction id, and the next lookup after it reads the index again
/// (docs/performance.md, "Query shapes on real trees"). Asking costs one look at the newest
/// meta page (`mdb_env_info`, no transaction) and one hash of the query. Held inline by the
/// bundle's `SearchPlan`, as its `TransactionScoped` is: opening a bundle allocates nothing for
/// its caches (as classes, freeing them made a bundle's release cost twice as much).
struct AnswerCache: ~Copyable, Sendable {
    /// A lookup's arguments as given; `localization` is `.none` for the calls without
    /// `forLocalization:`, `.some(nil)` for `forLocalization: nil`.
    struct Query: Hashable, Sendable {
        let name: String?
        let type: String?
        let subdirectory: String?
        let localization: String??

        // Byte for byte, as CF compares names (docs/search-pattern.md, L-byte-names): Swift's
        // String equality would take "café" with a composed and a combining accent for one
        // name and answer the second from the first's entry.
        static func == (a: Query, b: Query) -> Bool {
            a.digest == b.digest && same(a.name, b.name) && same(a.type, b.type) && same(a.subdirectory, b.subdirectory)
                && (a.localization == nil) == (b.localization == nil) && same(a.localization ?? nil, b.localization ?? nil)
        }

        /// The parts' bytes hashed once (XXH3), when the query is made: a first ask hashes the
        /// query twice (the look-up that misses, then the store), and the answer cache's look-up
        /// and store together cost three quarters of the index read on a first ask at 1M, with
        /// `Hasher` over every part's bytes a good share of it (docs/performance.md, "First
        /// asks at 1M"). The dictionary hashes this one word.
        private let digest: UInt64

        init(name: String?, type: String?, subdirectory: String?, localization: String??) {
            self.name = name
            self.type = type
            self.subdirectory = subdirectory
            self.localization = localization
            // Each part's hash seeds the next; its length goes in too (absent is not empty),
            // so parts cannot run into each other.
            func mix(_ part: String?, _ digest: UInt64) -> UInt64 {
                part.map { Hashing.memory($0, seed: digest &+ UInt64($0.utf8.count)) } ?? digest &* 0x9E37_79B9_7F4A_7C15
            }
            digest = mix(localization ?? nil, mix(subdirectory, mix(type, mix(name, localization == nil ? 1 : 2))))
        }

        func hash(into h: inout Hasher) {
            h.combine(digest)
        }

        private static func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case (let x?, let y?): return sameBytes(x, y)
            default: return false
            }
        }
    }

    /// At most this many answers per bundle; when full, the cache starts again empty.
    static let capacity = 4096

    private let answers = TransactionScoped<[Query: String?]>(empty: [:])

    /// The answer stored for `query` in transaction `newest`; nil when there is none (`.some(nil)`
    /// is a stored miss).
    func answer(for query: Query, newest: UInt64) -> String?? {
        answers.read(newest: newest) { $0[query] }
    }

    /// Keeps `answer`, read in transaction `transaction`; answers of older transactions are
    /// dropped, an answer older than the kept ones is not kept.
    func store(_ answer: String?, for query: Query, transaction: UInt64) {
        answers.update(transaction: transaction) { $0.set(answer, for: query, bounded: Self.capacity) }
    }
}

/// One value read from the index, kept for the LMDB transaction it was read in (as
/// `AnswerCache` keeps answers).
struct TransactionMemo<Value: Sendable>: ~Copyable, Sendable {
    private let kept = TransactionScoped<Value?>(empty: nil)

    /// The value kept for transaction `newest`, if any.
    func value(newest: UInt64) -> Value? {
        kept.read(newest: newest) { $0 }
    }

    /// Keeps `value`, read in `transaction`, unless a newer one is kept.
    func store(_ value: Value, transaction: UInt64) {
        kept.update(transaction: transaction) { $0 = value }
    }
}

/// The bundles an `IndexReader` opened by path, kept for the LMDB transaction their records were
/// read in, so that opening one again before the next commit costs a dictionary look-up (as
/// Foundation's `Bundle(path:)` returns the bundle it made before, but without outliving a
/// change of the index).
final class OpenedBundles: Sendable {
    /// At most this many bundles; when full, it starts again empty.
    static let capacity = 1024

    /// Paths (as given, made absolute) → the plans opened by that spelling, one per context.
    private let plans = TransactionScoped<[PathKey: [SearchPlan]]>(empty: [:])

    /// A path compared byte for byte, as the file system compares it (String equality would
    /// take "café" composed and decomposed for one), and hashed once, with XXH3: an open that
    /// misses hashes it twice (look-up, then store), and `Hasher` over a String's bytes with
    /// its normalization check was ~4 % of an open loop on the real corpus (`perf`).
    private struct PathKey: Hashable {
        let path: String
        let digest: UInt64

        init(_ path: String) {
            self.path = path
            digest = Hashing.memory(path, seed: 0)
        }

        static func == (a: PathKey, b: PathKey) -> Bool { a.digest == b.digest && sameBytes(a.path, b.path) }

        func hash(into h: inout Hasher) { h.combine(digest) }
    }

    func plan(path: String, context: SearchContext, newest: UInt64) -> SearchPlan? {
        plans.read(newest: newest) { plans in plans[PathKey(path)]?.first { $0.context == context } }
    }

    func remember(_ plan: SearchPlan, path: String, transaction: UInt64) {
        plans.update(transaction: transaction) { plans in
            if plans.count >= Self.capacity { plans.removeAll(keepingCapacity: true) }
            plans[PathKey(path), default: []].append(plan)
        }
    }
}

/// What the reads of one LMDB transaction produced, kept until a newer transaction's reads
/// replace it — the one rule behind every answer kept in memory for repeat asks
/// (`AnswerCache`, `TransactionMemo`, `OpenedBundles`, `LocalizedStringMemo`): every commit moves
/// the newest transaction id, a value kept for another transaction is never handed out, and
/// what an older transaction read never replaces what a newer one read.
///
/// A noncopyable struct around its lock, so that it lives inside whatever keeps it (a bundle's
/// `SearchPlan`) instead of in an allocation of its own.
struct TransactionScoped<Value: Sendable>: ~Copyable, Sendable {
    private let empty: Value
    private let state: Mutex<(transaction: UInt64, value: Value)>

    init(empty: Value) {
        self.empty = empty
        state = Mutex((0, empty))
    }

    /// `body` applied to the value kept for transaction `newest`; nil when the value kept is
    /// another transaction's.
    func read<R>(newest: UInt64, _ body: (Value) -> R?) -> R? {
        state.withLock { state in state.transaction == newest ? body(state.value) : nil }
    }

    /// Changes the value with what transaction `transaction` read: a newer transaction starts
    /// from the empty value, an older one changes nothing.
    func update(transaction: UInt64, _ body: (inout Value) -> Void) {
        state.withLock { state in
            if transaction != state.transaction {
                guard transaction > state.transaction else { return }
                state = (transaction, empty)
            }
            body(&state.value)
        }
    }
}

extension Dictionary {
    /// Sets `value` for `key`; a dictionary already holding `capacity` entries is emptied first,
    /// so that what is kept for repeat asks stays bounded.
    mutating func set(_ value: Value, for key: Key, bounded capacity: Int) {
        if count >= capacity { removeAll(keepingCapacity: true) }
        self[key] = value
    }
}
