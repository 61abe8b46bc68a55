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
    struct State {
        /// Directories read once in this transaction, by key hash.
        var readOnce: Set<UInt64> = []
        /// Directories read twice or more: their table, or nil when they are read from the index
        /// every time (variant names, too long, no record of the path asked).
        var tables: [UInt64: NameTable?] = [:]
        var entries = 0
    }

    private let state = TransactionScoped<State>(empty: State())

    /// What directory `key` (spelled `path`) of bundle `bundle` holds for `name`, from its
    /// table when one is kept; nil when the caller must read the index (`IndexSnapshot
    /// .nameCandidates`). The second call for a directory in one transaction builds its table.
    func candidates(bundle: UInt64, _ key: DirectoryKey, path: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer,
                    in snapshot: IndexSnapshot) throws -> NameCandidates? {
        guard snapshot.usesDirectoryTables else { return nil }
        let transaction = snapshot.transactionID
        let kept: NameTable?? = state.read(newest: transaction) { $0.tables[key.hash] }
        if let kept {
            guard let table = kept, table.isListing(of: path) else { return nil }
            return table.candidates(of: name)
        }
        var readBefore = false
        state.update(transaction: transaction) { state in
            if state.readOnce.count + state.tables.count >= Self.directoryCapacity { state = State() }
            readBefore = !state.readOnce.insert(key.hash).inserted
        }
        guard readBefore else { return nil }
        let (table, candidates) = try snapshot.nameTable(bundle: bundle, key, path: path, name: name, largest: Self.largestListing)
        state.update(transaction: transaction) { state in
            if state.entries + (table?.count ?? 0) > Self.entryCapacity { state = State() }
            state.tables[key.hash] = .some(table)
            state.entries += table?.count ?? 0
        }
        return candidates
    }
}
