/// What `localizedStringEntry(forKey:table:)` read and answered for one bundle since the index
/// last changed (docs/foundation-dropin.md, "Localized strings"): per table name the files its
/// lookup found and the answers given, and per table file the entries read. A repeated ask
/// costs a look at the newest transaction id (no read transaction) and a dictionary lookup,
/// as Foundation's repeated ask costs one in its parsed table; a key not asked yet costs, when
/// its table's entries were read, a binary search in them. All of it is forgotten at the next
/// commit of a build or a watcher. Held inline by the bundle's `SearchPlan`, as `AnswerCache`
/// is: a class of its own was one more allocation per opened bundle.
struct LocalizedStringMemo: ~Copyable, Sendable {
    // Its types are internal, not private: a private type stored inline in another file's
    // class (`SearchPlan`) crashes Swift 6.3's code generation ("Global is external…").
    /// An answer's table name and key, compared byte for byte: Swift's String equality would
    /// take "é" in one and in two scalars for the same key, which CF's tables keep apart.
    struct Key: Hashable {
        let table: String
        let key: String

        static func == (a: Key, b: Key) -> Bool {
            sameBytes(a.table, b.table) && sameBytes(a.key, b.key)
        }

        func hash(into h: inout Hasher) {
            h.combine(table.utf8.count)   // the length first: the two cannot run into each other
            h.combineBytes(of: table)
            h.combineBytes(of: key)
        }
    }

    /// A table file as the index tells tables apart: its path's hash and check.
    struct TableID: Hashable {
        let hash: UInt64
        let check: UInt32

        init(_ table: StringsKey.Table) { (hash, check) = (table.hash, table.check) }
    }

    /// A table file as far as read: not indexed, or the chunks of its entries read so far (all
    /// of them when the table record holds the entries), disjoint and in hash order.
    struct KeptTable {
        var notIndexed = false
        var chunks: [StringsEntries] = []

        /// The first chunk whose range ends at or after `hash` (`chunks.count` when none).
        func position(_ hash: UInt64) -> Int {
            var low = 0, high = chunks.count
            while low < high {
                let mid = (low + high) / 2
                if chunks[mid].upper < hash { low = mid + 1 } else { high = mid }
            }
            return low
        }

        func answer(hash: UInt64, check: UInt32) -> StringsRecords.TableAnswer? {
            if notIndexed { return .notIndexed }
            let i = position(hash)
            guard i < chunks.count, chunks[i].covers(hash) else { return nil }
            return chunks[i].value(hash: hash, check: check).map(StringsRecords.TableAnswer.found) ?? .missing
        }
    }

    struct State {
        var answers: [Key: String?] = [:]
        /// Per table name (`Key.key` empty): the files its lookups found, `.stringsdict` first.
        var files: [Key: [StringsKey.Table]] = [:]
        var tables: [TableID: KeptTable] = [:]
        /// The bytes the kept entries take.
        var entryBytes = 0

        /// The answer of `files` for `key` from their kept entries: `.some(nil)` when no file
        /// has the key; nil when a file's entries for it were not read, or it was not indexed.
        func fromEntries(_ files: [StringsKey.Table], key: String) -> String?? {
            key.withUTF8Bytes { k -> String?? in
                for file in files {
                    let (hash, check) = file.entry(UnsafeRawBufferPointer(k))
                    switch tables[TableID(file)]?.answer(hash: hash, check: check) {
                    case .found(let value)?: return .some(value)
                    case .missing?: continue
                    case .notIndexed?, nil: return nil
                    }
                }
                return .some(nil)
            }
        }
    }

    /// More answers than this and they are all forgotten (memory stays bounded).
    static let capacity = 4096
    /// More bytes of kept table entries than this and they are all dropped: every opened bundle
    /// has a memo, so it stays small (the largest table of the real corpus takes ~260 KB; a
    /// bundle rarely asks more than a few tables).
    static let entryCapacity = 1 << 20

    private let state = TransactionScoped(empty: State())

    /// The entry of table `table` for `key` (`.some(nil)`: none) as known in `transaction`: an
    /// answer given before, or one the kept entries of the table's files decide (then
    /// remembered); nil when the index has to be read.
    func answer(table: String, key: String, transaction: UInt64) -> String?? {
        let k = Key(table: table, key: key)
        if let given = state.read(newest: transaction, { $0.answers[k] }) { return given }
        var known: String??
        state.update(transaction: transaction) { state in
            guard let files = state.files[Key(table: table, key: "")],
                  let decided = state.fromEntries(files, key: key) else { return }
            known = .some(decided)
            state.answers.set(decided, for: k, bounded: Self.capacity)
        }
        return known
    }

    func remember(_ answer: String?, table: String, key: String, transaction: UInt64) {
        state.update(transaction: transaction) {
            $0.answers.set(answer, for: Key(table: table, key: key), bounded: Self.capacity)
        }
    }

    /// The table files a lookup of `table` found in `transaction`, if remembered: a key not
    /// asked before then costs its entry alone.
    func files(table: String, transaction: UInt64) -> [StringsKey.Table]? {
        state.read(newest: transaction) { $0.files[Key(table: table, key: "")] }
    }

    func remember(files: [StringsKey.Table], table: String, transaction: UInt64) {
        state.update(transaction: transaction) {
            $0.files.set(files, for: Key(table: table, key: ""), bounded: Self.capacity)
        }
    }

    /// What the memo knows of one table for one entry hash.
    enum KeptEntries {
        case known(StringsRecords.TableAnswer)
        /// Nothing of the table was read: its record or the key's chunk comes first.
        case unknownTable
        /// The table's entries are in chunks, and the chunk of this hash was not read.
        case unknownChunk
    }

    /// What the entries of `table` read in `transaction` say of the entry `hash`, `check`.
    func entries(of table: StringsKey.Table, hash: UInt64, check: UInt32, transaction: UInt64) -> KeptEntries {
        state.read(newest: transaction) { state -> KeptEntries? in
            guard let kept = state.tables[TableID(table)] else { return nil }
            return kept.answer(hash: hash, check: check).map(KeptEntries.known) ?? .unknownChunk
        } ?? .unknownTable
    }

    func remember(notIndexed table: StringsKey.Table, transaction: UInt64) {
        state.update(transaction: transaction) { $0.tables[TableID(table)] = KeptTable(notIndexed: true) }
    }

    /// Keeps `chunks`, chunks of `table` (or all its entries) read in `transaction`, in hash
    /// order; none: the table is chunked and none of its chunks is kept yet.
    func remember(_ chunks: [StringsEntries], of table: StringsKey.Table, transaction: UInt64) {
        let bytes = chunks.reduce(0) { $0 + $1.memoryBytes }
        state.update(transaction: transaction) { state in
            if state.entryBytes + bytes > Self.entryCapacity {
                state.tables.removeAll(keepingCapacity: true)
                state.entryBytes = 0
            }
            var kept = state.tables.removeValue(forKey: TableID(table)) ?? KeptTable()
            if chunks.first?.lower == 0 && chunks.last?.upper == .max {
                // Every chunk of the table (or its record's entries): they replace those kept.
                state.entryBytes += bytes - kept.chunks.reduce(0) { $0 + $1.memoryBytes }
                kept.chunks = chunks
            } else {
                for entries in chunks {
                    let i = kept.position(entries.upper)
                    // Another thread may have read the same chunk meanwhile.
                    if i == kept.chunks.count || kept.chunks[i].upper != entries.upper {
                        kept.chunks.insert(entries, at: i)
                        state.entryBytes += entries.memoryBytes
                    }
                }
            }
            state.tables[TableID(table)] = kept
        }
    }
}
