import Synchronization

/// The answers of single path lookups already made on one bundle (under one context), valid for
/// one LMDB transaction: every commit — a `build`, a watcher's batch, anything written to the
/// index — moves the newest transaction id, and the next lookup after it reads the index again
/// (docs/performance.md, "Query shapes on real trees"). Asking costs one look at the newest
/// meta page (`mdb_env_info`, no transaction) and one hash of the query. Held inline by the
/// bundle's `SearchPlan`, lock and all: opening a bundle allocates nothing for its caches (as
/// classes, freeing them made a bundle's release cost twice as much). It keeps
/// `TransactionScoped`'s rule with a table of its own (`AnswerTable`).
///
/// An answer that took a read of the index is kept at its first ask; one that the bundle's
/// kept directory tables gave without a read (`DirectorySource.lazy`) only at its query's
/// second ask in the transaction, the first ask marking the query (one bit of its digest).
/// Keeping every answer wrote an entry to fresh memory at every first ask, and most first asks
/// are never repeated; asking again what the tables answer costs far less than asking again
/// what the index answered (docs/performance.md, "First asks at 1k: instructions and cache
/// misses").
struct AnswerCache: ~Copyable, Sendable {
    /// At most this many answers per bundle; when full, the cache starts again empty.
    static let capacity = 4096

    private let table = Mutex(AnswerTable())

    /// The answer stored for the query (its parts as given; `localization` is `.none` for the
    /// calls without `forLocalization:`, `.some(nil)` for `forLocalization: nil`) in
    /// transaction `newest`; nil when there is none (`.some(nil)` is a stored miss). Marks
    /// nothing (what an ask does is `answerOrMark`).
    ///
    /// The parts are passed, not wrapped in a value: a struct holding them retains each string
    /// it is made from and releases it after, and the repeat ask is little more than that
    /// (docs/performance.md, "First asks and opening, in process").
    func answer(_ key: QueryKey, name: String?, type: String?, subdirectory: String?, localization: String??,
                newest: UInt64) -> String?? {
        table.withLock { table in
            guard table.transaction == newest else { return nil }
            return table.find(key, name, type, subdirectory, localization).map { table.entries[$0].answer }
        }
    }

    /// An ask: the answer stored for the query in transaction `newest` as `answer(…)` gives it,
    /// and when there is none, whether the query was asked before in that transaction (by its
    /// digest's mark, which another query may share). The ask is marked.
    func answerOrMark(_ key: QueryKey, name: String?, type: String?, subdirectory: String?, localization: String??,
                      newest: UInt64) -> (answer: String??, askedBefore: Bool) {
        table.withLock { table in
            if table.transaction != newest {
                guard newest > table.transaction else { return (nil, false) }
                table = AnswerTable(transaction: newest)
            }
            if let i = table.find(key, name, type, subdirectory, localization) { return (table.entries[i].answer, true) }
            return (nil, table.markAsked(key.digest))
        }
    }

    /// Keeps `answer`, read in transaction `transaction`; answers of older transactions are
    /// dropped, an answer older than the kept ones is not kept.
    func store(_ answer: String?, for key: QueryKey, name: String?, type: String?, subdirectory: String?,
               localization: String??, transaction: UInt64) {
        table.withLock { table in
            if transaction != table.transaction {
                guard transaction > table.transaction else { return }
                table = AnswerTable(transaction: transaction)
            }
            // Another thread may have read and kept the same query meanwhile.
            guard table.find(key, name, type, subdirectory, localization) == nil else { return }
            if table.entries.count >= Self.capacity { table = AnswerTable(transaction: transaction) }
            table.append(.init(digest: key.digest, name: name, type: type, subdirectory: subdirectory,
                               localization: localization, answer: answer))
        }
    }
}

/// A lookup's parts hashed once (XXH3), by the ask, for the look-up and the store of a first
/// ask alike.
struct QueryKey {
    let digest: UInt64

    init(name: String?, type: String?, subdirectory: String?, localization: String??) {
        // Each part's hash seeds the next; its length goes in too (absent is not empty), so
        // parts cannot run into each other.
        func mix(_ part: String?, _ digest: UInt64) -> UInt64 {
            guard let part else { return digest &* 0x9E37_79B9_7F4A_7C15 }
            return Hashing.memory(part, seed: digest &+ UInt64(part.utf8.count))
        }
        digest = mix(localization ?? nil, mix(subdirectory, mix(type, mix(name, localization == nil ? 1 : 2))))
    }
}

/// `AnswerCache`'s answers of one transaction: a list in the order asked, and, once it is
/// longer than a few cache lines of digests, an open-addressing index into it. Not a
/// `Dictionary`: its key would be a value holding the query's strings, made (four retains)
/// and hashed again (`Hasher`) at every repeat ask. Internal, not private: a private type
/// stored inline in another file's class (`SearchPlan`) crashes Swift 6.3's code generation.
struct AnswerTable {
    struct Entry {
        let digest: UInt64
        let name: String?
        let type: String?
        let subdirectory: String?
        let localization: String??
        let answer: String?
    }

    var transaction: UInt64 = 0
    private(set) var entries: [Entry] = []
    /// The entries' digests, in the same order: a look-up that scans reads these eight bytes
    /// each, not one entry (~100 bytes, a cache line of its own) each, so a first ask's miss
    /// costs a cache line or two instead of one per answer kept.
    private var digests: [UInt64] = []
    /// Empty while `digests` is scanned; then a power-of-two table of positions in `entries`
    /// plus one (0: free), at most half full.
    private var slots: [UInt16] = []

    /// Queries asked in this transaction: one bit per value of a digest's low 10 bits, made at
    /// the bundle's first ask (128 bytes). Two queries sharing a bit cost at most a store
    /// made one ask early, never a wrong answer. Fresh memory costs a page fault per 4 KiB
    /// (5–9 µs here), and most bundles of a large index get a few asks: at 512 bytes the
    /// bits, with room for 16 answers, were ~2 KiB per bundle's first ask (docs/performance.md,
    /// "Fresh memory at a bundle's first ask").
    private var asked: [UInt64] = []

    /// Marks the digest as asked; returns whether it was already.
    mutating func markAsked(_ digest: UInt64) -> Bool {
        if asked.isEmpty { asked = Array(repeating: 0, count: 16) }
        let bit = Int(truncatingIfNeeded: digest) & 1023
        let word = asked[bit >> 6], mask = UInt64(1) << UInt64(bit & 63)
        asked[bit >> 6] = word | mask
        return word & mask != 0
    }

    /// Up to this many entries, a look-up compares their digests in turn.
    private static let scanned = 16

    /// The entries room is made for at the first.
    private static let firstRoom = 4

    init(transaction: UInt64 = 0) { self.transaction = transaction }

    func find(_ key: QueryKey, _ name: String?, _ type: String?, _ subdirectory: String?, _ localization: String??) -> Int? {
        // Byte for byte, as CF compares names (docs/search-pattern.md, L-byte-names): Swift's
        // String equality would take "café" with a composed and a combining accent for one name
        // and answer the second from the first's entry. Each field is read in place (a copy of
        // the entry would retain its five strings).
        func matches(_ i: Int) -> Bool {
            entries[i].digest == key.digest && Self.same(entries[i].name, name) && Self.same(entries[i].type, type)
                && Self.same(entries[i].subdirectory, subdirectory)
                && (entries[i].localization == nil) == (localization == nil)
                && Self.same(entries[i].localization ?? nil, localization ?? nil)
        }
        if slots.isEmpty {
            for i in digests.indices where digests[i] == key.digest && matches(i) { return i }
            return nil
        }
        let mask = slots.count - 1
        var at = Int(truncatingIfNeeded: key.digest) & mask
        while slots[at] != 0 {
            let i = Int(slots[at]) - 1
            if digests[i] == key.digest && matches(i) { return i }
            at = (at + 1) & mask
        }
        return nil
    }

    mutating func append(_ entry: Entry) {
        // Room for a few entries at first, then for all the scanned ones at once: grown from
        // one, the list was copied at every doubling, each copy written to fresh memory; room
        // for the scanned ones at first (1.4 KiB) was mostly never used, most bundles of a
        // large index keeping one or two answers.
        if entries.isEmpty || entries.count == Self.firstRoom {
            let room = entries.isEmpty ? Self.firstRoom : Self.scanned
            entries.reserveCapacity(room)
            digests.reserveCapacity(room)
        }
        digests.append(entry.digest)
        entries.append(entry)
        if entries.count > Self.scanned && entries.count * 2 > slots.count {
            slots = Array(repeating: 0, count: max(64, slots.count * 2))
            for i in digests.indices { place(i) }
        } else if !slots.isEmpty {
            place(entries.count - 1)
        }
    }

    private mutating func place(_ i: Int) {
        let mask = slots.count - 1
        var at = Int(truncatingIfNeeded: digests[i]) & mask
        while slots[at] != 0 { at = (at + 1) & mask }
        slots[at] = UInt16(i + 1)
    }

    private static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return sameBytes(x, y)
        default: return false
        }
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

/// The bundles an `IndexReader` opened by path (or, in a table of its own, by identifier), kept
/// for the LMDB transaction their records were read in, so that opening one again before the
/// next commit costs a dictionary look-up (as Foundation's `Bundle(path:)` returns the bundle it
/// made before, but without outliving a change of the index). An identifier is kept under its
/// bytes as a path is.
final class OpenedBundles: Sendable {
    /// At most this many bundles; when full, it starts again empty. With 1 024, the real mix of
    /// gen-tree's real profile at 1M (about 9 000 bundles) emptied it over and over, and a repeat
    /// open read the index again: 2.1 µs instead of 0.21 µs. A kept bundle costs about 0.9 KB
    /// (10 000 opens of distinct bundles: peak RSS 90.1 MB against 82.0 MB with 1 024), so a
    /// full table about 15 MB (docs/performance.md, "Opened bundles: 16 384 kept").
    static let capacity = 16_384

    /// Paths (as given, made absolute) → the plans opened by that spelling, one per context.
    /// Made with room for 64 bundles: growing from empty, its rehashing cost ~900 instructions per
    /// open over a reader's first 74 (callgrind, docs/performance.md, "Opening a bundle").
    private let plans = TransactionScoped<[PathKey: [SearchPlan]]>(empty: Dictionary(minimumCapacity: 64))

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
/// (`TransactionMemo`, `OpenedBundles`, `LocalizedStringMemo`; `AnswerCache` keeps it in a table
/// of its own): every commit moves
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
    /// from the empty value, an older one changes nothing (and gets nil back).
    @discardableResult
    func update<R>(transaction: UInt64, _ body: (inout Value) -> R) -> R? {
        state.withLock { state in
            if transaction != state.transaction {
                guard transaction > state.transaction else { return nil }
                state = (transaction, empty)
            }
            return body(&state.value)
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
