/// The listings of the directories one bundle's lookups read more than once, kept in memory for
/// the LMDB transaction they were read in, as Foundation keeps a bundle's directory contents
/// after its first lookup there (docs/performance.md, "Directory tables: …"). The first read of a
/// directory in a transaction goes to the index as always and is only noted; the second builds a
/// `NameTable` of its entries, and every later lookup of an exact name there is a hash probe in
/// memory instead of an LMDB descent and a walk through the stored listing. A lookup asked once
/// per directory pays a note and nothing more; a commit by `build` or `watch` moves the newest
/// transaction id, and the next lookup starts from nothing (`TransactionScoped`).
///
/// Directories whose record lists variant names (`logo-linux.png` for `logo.png`) and listings
/// longer than `largestListing` are read from the index each time; past `entryCapacity` entries
/// or `directoryCapacity` directories, what is kept is dropped. Held inline by the bundle's
/// `SearchPlan`.
struct DirectoryTables: ~Copyable, Sendable {
    /// At most this many entries kept per bundle; past it, the kept tables are dropped.
    static let entryCapacity = 16_384
    /// A listing longer than this is never kept (its table would cost more than it saves).
    static let largestListing = 4_096
    /// At most this many directories noted or kept per bundle; past it, everything is dropped.
    static let directoryCapacity = 4_096

    // Internal, not private: a private type stored inline in another file's class crashes Swift
    // 6.3's code generation (see `AnswerTable`).
    /// What is known of one directory in this transaction.
    enum Known {
        /// Read once from the index.
        case readOnce
        /// Read twice or more: its table, or nil when it is read from the index every time
        /// (variant names, too long, no record of the path asked).
        case kept(NameTable?)
    }

    /// The directories by key hash, in one open-addressing table (not a `Set` and a
    /// `Dictionary`: their `Hasher` rehashed a hash already spread by XXH3, and the two cost
    /// two look-ups and two locks per read).
    struct State {
        /// A power of two of slots, at most half of them used.
        var slots: [(hash: UInt64, known: Known)?] = []
        var directories = 0
        var entries = 0

        /// What is known of `hash`, if anything.
        func known(_ hash: UInt64) -> Known? { slots.isEmpty ? nil : slots[slot(hash)]?.known }

        /// The slot of `hash`: the one holding it, or the free one where it would go.
        func slot(_ hash: UInt64) -> Int {
            let mask = slots.count - 1
            var at = Int(truncatingIfNeeded: hash) & mask
            while let held = slots[at], held.hash != hash { at = (at + 1) & mask }
            return at
        }

        /// Sets what is known of `hash`, making room first when half the slots are used (or
        /// none is there yet).
        mutating func set(_ known: Known, for hash: UInt64) {
            if slots.isEmpty || slots[slot(hash)] == nil {
                if 2 * (directories + 1) > slots.count {
                    let old = slots
                    // Sixteen at first. Four spared 0.3 KiB of fresh memory per bundle (a
                    // quarter of the page faults left at a first ask at 1M) but cost the tables
                    // two more growths, a malloc more per lookup at the gate's p90
                    // (docs/performance.md, "Fresh memory at a bundle's first ask").
                    slots = Array(repeating: nil, count: max(16, 2 * slots.count))
                    for case let held? in old { slots[slot(held.hash)] = held }
                }
                directories += 1
            }
            slots[slot(hash)] = (hash, known)
        }
    }

    private let state = TransactionScoped<State>(empty: State())

    /// What directory `key` (spelled `path`) holds for `name` by its table kept for commit
    /// `transaction`; nil when none is kept (the index must be read). Notes nothing.
    func kept(_ key: DirectoryKey, path: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer,
              transaction: UInt64) -> NameCandidates? {
        state.read(newest: transaction) { state -> NameCandidates? in
            guard case .kept(let table?) = state.known(key.hash) else { return nil }
            return Self.candidates(in: table, path: path, name: name)
        }
    }

    /// What `table` holds for `name`; nil when it is not the listing of `path` (a collision of
    /// key hashes), which is then read from the index.
    private static func candidates(in table: NameTable, path: UnsafeRawBufferPointer,
                                   name: UnsafeRawBufferPointer) -> NameCandidates? {
        table.isListing(of: path) ? table.candidates(of: name) : nil
    }

    /// What directory `key` (spelled `path`) of bundle `bundle` holds for `name`, from its
    /// table when one is kept; nil when the caller must read the index (`IndexSnapshot
    /// .nameCandidates`). The second call for a directory in one transaction builds its table.
    func candidates(bundle: UInt64, _ key: DirectoryKey, path: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer,
                    in snapshot: IndexSnapshot) throws -> NameCandidates? {
        guard snapshot.usesDirectoryTables else { return nil }
        let transaction = snapshot.transactionID
        enum Next { case answer(NameCandidates?), build }
        // One lock: the answer from a kept table (probed under it), or the note of a
        // first read, or the decision to build.
        let next: Next = state.update(transaction: transaction) { state in
            switch state.known(key.hash) {
            case .kept(let table?): return .answer(Self.candidates(in: table, path: path, name: name))
            case .kept(nil): return .answer(nil)
            case .readOnce: return .build
            case nil: break
            }
            if state.directories >= Self.directoryCapacity { state = State() }
            state.set(.readOnce, for: key.hash)
            return .answer(nil)
        } ?? .answer(nil)
        switch next {
        case .answer(let candidates): return candidates
        case .build: break
        }
        let (table, candidates) = try snapshot.nameTable(bundle: bundle, key, path: path, name: name, largest: Self.largestListing)
        state.update(transaction: transaction) { state in
            if state.entries + (table?.count ?? 0) > Self.entryCapacity { state = State() }
            state.set(.kept(table), for: key.hash)
            state.entries += table?.count ?? 0
        }
        return candidates
    }
}
