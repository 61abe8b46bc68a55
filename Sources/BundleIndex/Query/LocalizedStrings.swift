import Synchronization

/// `Bundle.localizedString(forKey:value:table:)` from the index (docs/foundation-dropin.md,
/// "Localized strings", which states CF's rules: `CFBundleCopyLocalizedStringForLocalization`).
extension IndexedBundle {
    /// `Bundle.localizedString(forKey:value:table:)`: the table's entry for `key`; when it has
    /// none, `value`, or `key` itself when `value` is nil or empty. A nil or empty `table` is
    /// `Localizable`.
    ///
    /// ```swift
    /// let title = try app.localizedString(forKey: "welcome", value: "Welcome", table: nil)
    /// ```
    ///
    /// The table is the `table.strings` the search pattern finds first, merged with the
    /// `table.stringsdict` it finds first (whose entries win); both are read from the index
    /// (no file is parsed). Throws `BundleIndexError.badInput` for a table too large to have
    /// been indexed (over 16 MiB).
    public func localizedString(forKey key: String, value: String?, table: String?) throws -> String {
        Self.answer(try localizedStringEntry(forKey: key, table: table), key: key, value: value)
    }

    /// `localizedString(forKey:value:table:)` with the tables looked up for `localization` (see
    /// `localizedStringEntry(forKey:table:forLocalization:)`).
    public func localizedString(forKey key: String, value: String?, table: String?, forLocalization localization: String?) throws -> String {
        Self.answer(try localizedStringEntry(forKey: key, table: table, forLocalization: localization), key: key, value: value)
    }

    /// The table a `table` argument names: `Localizable` for nil or "", as in Foundation.
    public static func stringsTableName(_ table: String?) -> String {
        table.flatMap { $0.isEmpty ? nil : $0 } ?? "Localizable"
    }

    /// CF's answer for a key the table has (`entry`) or not: `value`, else the key.
    private static func answer(_ entry: String?, key: String, value: String?) -> String {
        if let entry { return entry }
        if let value, !value.isEmpty { return value }
        return key
    }

    /// The table's own entry for `key` (see `localizedString(forKey:value:table:)`), nil when
    /// it has none.
    public func localizedStringEntry(forKey key: String, table: String?) throws -> String? {
        let name = Self.stringsTableName(table)
        let newest = reader.store.environment.newestTransactionID()
        if let known = plan.strings.answer(table: name, key: key, transaction: newest) { return known }
        // A key not asked yet, of a table asked since the index last changed: from the entries
        // that ask read, when they cover the key.
        if let known = plan.strings.answerFromEntries(table: name, key: key, transaction: newest) {
            plan.strings.remember(known, table: name, key: key, transaction: newest)
            return known
        }
        let (answer, transaction) = try entry(key, name, .unspecified)
        plan.strings.remember(answer, table: name, key: key, transaction: transaction)
        return answer
    }

    /// `localizedStringEntry(forKey:table:)` with the tables looked up for `localization`, as
    /// `path(forResource:ofType:inDirectory:forLocalization:)` finds them: the global folder,
    /// then `localization.lproj` (CF's `CFBundleCopyLocalizedStringForLocalization`).
    public func localizedStringEntry(forKey key: String, table: String?, forLocalization localization: String?) throws -> String? {
        try entry(key, Self.stringsTableName(table), .given(localization)).answer
    }

    /// The entry of table `name` for `key`, and the transaction it was read in.
    private func entry(_ key: String, _ name: String, _ localization: ResourceLookup.Localization) throws -> (answer: String?, transaction: UInt64) {
        let bundleID = record.id, plain = localization == .unspecified
        return try reader.store.read { snap in
            for table in try tableFiles(name, localization, snap) {
                let answer = try key.withUTF8Bytes { k in
                    let k = UnsafeRawBufferPointer(k)
                    return try plain ? keptEntry(table, key: k, snap) : snap.stringsEntry(bundle: bundleID, table, key: k)
                }
                switch answer {
                case .found(let value): return (value, snap.transactionID)
                case .missing: continue
                // A miss is an answer only for a table whose every entry is indexed.
                case .notIndexed:
                    throw BundleIndexError.badInput(path: bundlePath + "/" + table.path, reason: "this strings table is not in "
                                                    + "the index (over \(StringsTable.sizeLimit >> 20) MiB)")
                }
            }
            return (nil, snap.transactionID)
        }
    }

    /// What `table` holds for `key`, from the entries of it read before in this snapshot's
    /// transaction when they cover the key; else read and kept for the next keys. A table's
    /// first ask reads the key's chunk alone, or the table record when it holds the entries (a
    /// large table is not read whole for one key); the next ask it cannot answer reads every
    /// chunk (one cursor run), so that the keys after it come from memory.
    private func keptEntry(_ table: StringsKey.Table, key: UnsafeRawBufferPointer, _ snap: IndexSnapshot) throws -> StringsRecords.TableAnswer {
        let (hash, check) = table.entry(key)
        let transaction = snap.transactionID
        let entries: [StringsEntries]
        switch plan.strings.entries(of: table, hash: hash, check: check, transaction: transaction) {
        case .known(let answer): return answer
        case .unknownTable:
            guard let first = try snap.stringsFirstRead(bundle: record.id, table, covering: hash).entries() else {
                plan.strings.remember(notIndexed: table, transaction: transaction)
                return .notIndexed
            }
            entries = [first]
        case .unknownChunk: entries = try snap.stringsChunks(bundle: record.id, table)
        }
        plan.strings.remember(entries, of: table, transaction: transaction)
        guard let holding = entries.first(where: { $0.covers(hash) }) else {
            throw IndexFormatError(what: "strings table without the chunk of an entry hash")
        }
        return holding.value(hash: hash, check: check).map(StringsRecords.TableAnswer.found) ?? .missing
    }

    /// The files of table `name`: the `.stringsdict` a lookup finds, then the `.strings` (CF
    /// lays the first's entries over the second's). Remembered for the plain lookup.
    private func tableFiles(_ name: String, _ localization: ResourceLookup.Localization,
                            _ snap: IndexSnapshot) throws -> [StringsKey.Table] {
        let plain = localization == .unspecified
        if plain, let known = plan.strings.files(table: name, transaction: snap.transactionID) { return known }
        let files = try ["stringsdict", "strings"].compactMap { try tablePath(name, $0, localization, snap) }.map(StringsKey.Table.init)
        if plain { plan.strings.remember(files: files, table: name, transaction: snap.transactionID) }
        return files
    }

    /// The table file a lookup of `name`.`type` finds, relative to the bundle root; nil when
    /// there is none or it is a folder (CF reads no data from a folder: an empty table).
    private func tablePath(_ name: String, _ type: String, _ localization: ResourceLookup.Localization,
                           _ snap: IndexSnapshot) throws -> String? {
        let direct: (DirectLookup.Hit) -> (String, Bool) = { (String(decoding: $0.relativePath, as: UTF8.self), $0.isDirectory) }
        let general: (ResourceHit) -> (String, Bool) = { ($0.relativePath, $0.isDirectory) }
        let hit: (String, Bool)?
        switch localization {
        case .unspecified: hit = try single(in: snap, name, type, nil, direct: direct, general: general)
        case .given(let l): hit = try localized(in: snap, name, type, nil, l, direct: direct, general: general)
        }
        guard let (path, isDirectory) = hit, !isDirectory else { return nil }
        return path
    }
}

/// The answers `localizedStringEntry(forKey:table:)` gave for one bundle since the index last
/// changed: a repeated ask costs a look at the newest transaction id (no read transaction) and
/// a dictionary lookup, as Foundation's repeated ask costs one in its parsed table — but it
/// holds only keys asked, and forgets them all at the next commit of a build or a watcher.
final class LocalizedStringMemo: Sendable {
    private struct Key: Hashable {
        let table: String
        let key: String

        // Byte for byte: Swift's String equality would take "é" in one and in two scalars
        // for the same key, which CF's tables keep apart.
        static func == (a: Key, b: Key) -> Bool {
            sameBytes(a.table, b.table) && sameBytes(a.key, b.key)
        }

        func hash(into h: inout Hasher) {
            h.combine(table.utf8.count)   // the length first: the two cannot run into each other
            h.combineBytes(of: table)
            h.combineBytes(of: key)
        }
    }

    private struct State {
        var answers: [Key: String?] = [:]
        /// Per table name (`Key.key` empty): the files its lookups found, `.stringsdict` first.
        var files: [Key: [StringsKey.Table]] = [:]
        /// Per table file (its hash and check, as the index tells tables apart): what of its
        /// entries was read.
        var tables: [TableID: KeptTable] = [:]
        /// The bytes the kept entries take.
        var entryBytes = 0
    }

    private struct TableID: Hashable {
        let hash: UInt64
        let check: UInt32

        init(_ table: StringsKey.Table) { (hash, check) = (table.hash, table.check) }
    }

    /// A table file as far as read: not indexed, or the chunks of its entries read so far (all
    /// of them when the table record holds the entries), disjoint and in hash order.
    private struct KeptTable {
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

    /// What the memo knows of one table for one entry hash.
    enum KeptEntries {
        case known(StringsRecords.TableAnswer)
        /// Nothing of the table was read: its record comes first.
        case unknownTable
        /// The table's entries are in chunks, and the chunk of this hash was not read.
        case unknownChunk
    }

    /// More distinct keys than this and the memo starts again (memory stays bounded).
    static let capacity = 4096
    /// More bytes of kept table entries than this and they are all dropped (the largest tables
    /// of the real corpus hold a few hundred KiB; a bundle rarely asks more than a few tables).
    static let entryCapacity = 4 << 20

    private let state = TransactionScoped(empty: State())

    /// The remembered answer (`.some(nil)`: the table has no such key), if there is one read
    /// in `transaction`.
    func answer(table: String, key: String, transaction: UInt64) -> String?? {
        state.read(newest: transaction) { $0.answers[Key(table: table, key: key)] }
    }

    func remember(_ answer: String?, table: String, key: String, transaction: UInt64) {
        state.update(transaction: transaction) {
            $0.answers.set(answer, for: Key(table: table, key: key), bounded: Self.capacity)
        }
    }

    /// The table files a lookup of `table` found in `transaction`, if remembered: a key not
    /// asked before then costs its entry read alone.
    func files(table: String, transaction: UInt64) -> [StringsKey.Table]? {
        state.read(newest: transaction) { $0.files[Key(table: table, key: "")] }
    }

    func remember(files: [StringsKey.Table], table: String, transaction: UInt64) {
        state.update(transaction: transaction) {
            $0.files.set(files, for: Key(table: table, key: ""), bounded: Self.capacity)
        }
    }

    /// The entry for `key` of table `table` (its `.stringsdict` over its `.strings`) when the
    /// entries read in `transaction` decide it: `.some(nil)` when no file has the key; nil when
    /// a read is needed (a file or a chunk not read yet, or a table that was not indexed, whose
    /// error the read gives).
    func answerFromEntries(table: String, key: String, transaction: UInt64) -> String?? {
        state.read(newest: transaction) { state -> String?? in
            guard let files = state.files[Key(table: table, key: "")] else { return nil }
            return key.withUTF8Bytes { k -> String?? in
                for file in files {
                    let (hash, check) = file.entry(UnsafeRawBufferPointer(k))
                    switch state.tables[TableID(file)]?.answer(hash: hash, check: check) {
                    case .found(let value)?: return .some(value)
                    case .missing?: continue
                    case .notIndexed?, nil: return nil
                    }
                }
                return .some(nil)
            }
        }
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

    /// Keeps `chunks`, chunks of `table` (or all its entries) read in `transaction`, in hash order.
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
