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
        // A key asked before, or a key of a table asked before whose entries were kept.
        if let known = plan.strings.answer(table: name, key: key, transaction: newest) { return known }
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
    /// transaction when they cover the key; else read. A table's first ask reads the key's
    /// chunk and keeps nothing of it (a large table is not read whole, nor copied, for one
    /// key), or the table record, whose entries, when it holds them, are kept; the next ask the
    /// kept entries cannot answer reads every chunk (one cursor run), kept so that the keys
    /// after it come from memory.
    private func keptEntry(_ table: StringsKey.Table, key: UnsafeRawBufferPointer, _ snap: IndexSnapshot) throws -> StringsRecords.TableAnswer {
        let (hash, check) = table.entry(key)
        let transaction = snap.transactionID
        switch plan.strings.entries(of: table, hash: hash, check: check, transaction: transaction) {
        case .known(let answer): return answer
        case .unknownTable:
            let (answer, entries) = try snap.stringsFirstLookup(bundle: record.id, table, hash: hash, check: check)
            switch (answer, entries) {
            case (.notIndexed, _): plan.strings.remember(notIndexed: table, transaction: transaction)
            case (_, let entries?): plan.strings.remember([entries], of: table, transaction: transaction)
            case (_, nil): plan.strings.remember([], of: table, transaction: transaction)
            }
            return answer
        case .unknownChunk:
            let entries = try snap.stringsChunks(bundle: record.id, table)
            plan.strings.remember(entries, of: table, transaction: transaction)
            guard let holding = entries.first(where: { $0.covers(hash) }) else {
                throw IndexFormatError(what: "strings table without the chunk of an entry hash")
            }
            return holding.value(hash: hash, check: check).map(StringsRecords.TableAnswer.found) ?? .missing
        }
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
