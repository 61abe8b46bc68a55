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
        let bundleID = record.id
        return try reader.store.read { snap in
            for table in try tableFiles(name, localization, snap) {
                switch try key.withUTF8Bytes({ try snap.stringsEntry(bundle: bundleID, table, key: UnsafeRawBufferPointer($0)) }) {
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
    }

    /// More distinct keys than this and the memo starts again (memory stays bounded).
    static let capacity = 4096

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
}
