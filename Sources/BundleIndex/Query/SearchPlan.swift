/// Everything about a bundle's search that does not depend on the query, computed once per
/// (bundle, context) when the bundle is opened: the derived Info.plist facts, the search steps,
/// and the directories (with their key hashes) the steps read for the common query — no
/// subdirectory, the bundle's own resource directory.
final class SearchPlan: Sendable {
    let record: BundleRecord
    /// The commit `record` was read in: its directory marks say which folders exist in that
    /// commit only (`mayHoldDirectory`).
    let recordTransaction: UInt64
    let context: SearchContext
    let info: BundleInfo
    let steps: [ResourceSearch.Step]
    /// Per step: the directory read and CF's path prefix, for `subdirectory == nil`.
    let plainDirectories: [DirectoryRef]
    let plainPrefixes: [String]
    /// Per step: whether its directory can exist — the global one always, an lproj step only when
    /// the bundle's resource directory had an entry `<l>.lproj` when it was scanned. A step that
    /// cannot exist is not read at all (a miss costs one read per existing step), as CF's bundle
    /// consults its cached list of lproj folders. True of the commit the record was read in only
    /// (`resourceBase(in:)`).
    let stepMayExist: StepFlags
    /// The longest directory path of `plainDirectories`, in bytes.
    let longestPlainDirectory: Int
    /// Whether one of them has a dot (`en.x`): CF's `forLocalization:` filter tests a path for
    /// the prefix `L.`, which `en.x.lproj/…` passes for `en` (DirectLookup leaves such bundles
    /// to the general lookup).
    let lprojNameHasDot: Bool
    /// A miss in a version-0 bundle (or /Library/Spotlight) is looked up again from the
    /// bundle root (docs/search-pattern.md, "Version-0 root fallback").
    let hasRootFallback: Bool
    /// Where `DirectLookup` searches: the resource directory, and the bundle root when the
    /// bundle has the version-0 fallback (`rootBase(in:)`). For the commit the record was read
    /// in (`resourceBase(in:)`).
    let resourceBase: SearchBase
    /// `resourceBase` for a later commit, once per transaction (`resourceBase(in:)`).
    private let laterResource = TransactionMemo<SearchBase>()
    /// The root fallback's steps as the root's listing allows them, once per transaction (`rootBase(in:)`).
    private let narrowedRoot = TransactionMemo<SearchBase>()
    /// The root fallback's steps for lookups in a subdirectory, made once (`markedRootBase`).
    private let markedRoot = TransactionMemo<SearchBase>()
    /// Answers of `path(forResource:…)` already given, for repeat asks.
    let answers = AnswerCache()
    /// The localized Info dictionary, once read.
    let localizedInfo = TransactionMemo<[String: PropertyListValue]?>()
    /// The localized strings answered since the index last changed (`LocalizedStringMemo`).
    let strings = LocalizedStringMemo()
    /// The listings of directories its lookups read more than once in a transaction.
    let directories = DirectoryTables()

    /// `shared` keeps what the plan shares with other bundles of the reader (`SharedPlanParts`).
    init(record: BundleRecord, readIn transaction: UInt64, context: SearchContext, shared parts: SharedPlanParts) {
        recordTransaction = transaction
        let info = BundleInfo(record: record, context: context, shared: parts)
        let shared = parts.steps(layout: record.layout, searchList: info.searchList)
        steps = shared.steps
        plainDirectories = shared.directories
        plainPrefixes = shared.prefixes
        longestPlainDirectory = shared.longestDirectory
        // The record's array, not a Set of it: hashing 10–40 names cost ~4 % of an open on the
        // real corpus, and only a few steps and `forLocalization:` misses look a name up.
        let lprojs = record.lprojs
        stepMayExist = Self.stepsThatMayExist(steps, lprojs: lprojs)
        lprojNameHasDot = lprojs.contains { $0.utf8.contains(UInt8(ascii: ".")) }
        hasRootFallback = record.layout == .resources
            || (record.layout == .contents && record.path == "/Library/Spotlight")
        resourceBase = SearchBase(directories: plainDirectories, mayExist: stepMayExist, lprojNames: lprojs)
        // Last, so that the record, the context and the info move in instead of being copied
        // (each copy retains and releases every field: ~1 000 instructions per open).
        self.info = info
        self.context = context
        self.record = record
    }

    /// Per step, whether its folder may exist in a folder whose lproj folders are `lprojs`: the
    /// global step always, an lproj step only when its folder is listed.
    private static func stepsThatMayExist(_ steps: [ResourceSearch.Step], lprojs: [String]) -> StepFlags {
        StepFlags(steps.lazy.map { step in step.lproj.map { lprojs.contains($0) } ?? true })
    }

    /// The resource directory's steps kept for commit `transaction`: `resourceBase` in the
    /// commit the record was read in, else what `resourceBase(in:)` made in that commit.
    func keptResourceBase(transaction: UInt64) -> SearchBase? {
        transaction == recordTransaction ? resourceBase : laterResource.value(newest: transaction)
    }

    /// The resource directory's steps in `snapshot`: `resourceBase` in the commit the record
    /// was read in; in a later one, as the resource directory's listing there allows them, read
    /// once per transaction. A build or a watcher's batch may have added or removed lproj
    /// folders since the bundle was opened: with the open's list, a lookup skipped a folder
    /// made since (`path(forResource:)` of `en.lproj/y.png` was nil where a fresh `Bundle`
    /// found it) and `forLocalization:` took a new lproj for none. The language search list
    /// stays the one made at open (`BundleInfo`).
    func resourceBase(in snapshot: IndexSnapshot) throws -> SearchBase {
        if snapshot.transactionID == recordTransaction { return resourceBase }
        if let known = laterResource.value(newest: snapshot.transactionID) { return known }
        let lprojs = try snapshot.directory(bundle: record.id, DirectoryRef(record.layout.resourceDirectory))?
            .entries.compactMap(\.lprojName) ?? []
        let base = SearchBase(directories: plainDirectories, mayExist: Self.stepsThatMayExist(steps, lprojs: lprojs),
                              lprojNames: lprojs)
        laterResource.store(base, transaction: snapshot.transactionID)
        return base
    }

    /// Whether the directory of key hash `hash` may have a record in commit `transaction`:
    /// false only when the record's directory marks, read in that commit, lack it. A later
    /// commit may have added the folder, so then it may.
    func mayHoldDirectory(_ hash: UInt64, in transaction: UInt64) -> Bool {
        transaction != recordTransaction || record.directoryMarks.mayHold(hash)
    }

    /// The version-0 fallback's steps kept for commit `transaction`, if `rootBase(in:)` made
    /// them in a snapshot of that commit.
    func keptRootBase(transaction: UInt64) -> SearchBase? { narrowedRoot.value(newest: transaction) }

    /// The version-0 fallback's steps as the root's listing in `snapshot` allows them (nil
    /// when the bundle has no fallback): an lproj step only when the root has an entry
    /// `<l>.lproj`, the global step only for names some root entry could answer
    /// (`SearchBase.rootEntries`). Every version-0 miss searches the root again; its folder
    /// is read once per transaction, and its absent lproj folders cost no reads after it.
    func rootBase(in snapshot: IndexSnapshot) throws -> SearchBase? {
        guard hasRootFallback else { return nil }
        if let known = narrowedRoot.value(newest: snapshot.transactionID) { return known }
        let directories = rootDirectories()
        // The root's record lists every entry; a folder not listed there holds no records.
        // Without one (not expected), every root step is read.
        let narrowed = try snapshot.directory(bundle: record.id, DirectoryRef("")).map { root in
            let names = root.entries.map(\.name)
            let lprojs = names.compactMap { $0.hasSuffix(".lproj") ? String($0.dropLast(6)) : nil }
            return SearchBase(directories: directories,
                              mayExist: Self.stepsThatMayExist(steps, lprojs: lprojs),
                              lprojNames: lprojs, rootEntries: names)
        } ?? SearchBase(directories: directories, mayExist: StepFlags(steps.lazy.map { _ in true }), lprojNames: nil)
        narrowedRoot.store(narrowed, transaction: snapshot.transactionID)
        return narrowed
    }

    /// The root fallback's directories, one per step: made at the first fallback, not at
    /// open, as most lookups never need them.
    private func rootDirectories() -> [DirectoryRef] {
        steps.map { DirectoryRef($0.lproj.map { $0 + ".lproj" } ?? "") }
    }

    /// The version-0 fallback's steps for a lookup in a subdirectory, without a read: in the
    /// commit the record was read in (nil in another), an lproj step only when the marks hold
    /// the root's `<l>.lproj`; the lookup then asks the marks for each `<step>/<subdirectory>`
    /// (`DirectorySource.candidates`) — more than the root's listing knows, which has only the
    /// subdirectory's first component. A lookup without a subdirectory takes `rootBase(in:)`:
    /// the root's listing, read once per transaction, spares the root's own record a read at
    /// every miss.
    func markedRootBase(transaction: UInt64) -> SearchBase? {
        guard hasRootFallback, transaction == recordTransaction else { return nil }
        if let known = markedRoot.value(newest: transaction) { return known }
        let directories = rootDirectories()
        let marks = record.directoryMarks
        let marked = SearchBase(directories: directories,
                                mayExist: StepFlags(steps.indices.lazy.map { step in
                                    self.steps[step].lproj == nil || marks.mayHold(directories[step].hash)
                                }),
                                lprojNames: nil)
        markedRoot.store(marked, transaction: transaction)
        return marked
    }
}

/// The directories a search's steps read, from one starting folder.
struct SearchBase: Sendable {
    /// Per step: the directory (relative to the bundle root) and its key.
    let directories: [DirectoryRef]
    /// Per step: whether its directory can exist (steps that cannot are not read).
    let mayExist: StepFlags
    /// The starting folder's lproj names, when known.
    let lprojNames: [String]?
    /// The bundle root's entry names (byte order), when this is the root read through its
    /// listing: the global step is read only for a name one of them could answer
    /// (`mayHold(name:subdirectory:)`).
    var rootEntries: [String]? = nil

    /// Whether the global step's folder may hold `name` (UTF-8) in `subdirectory`, by
    /// `rootEntries`: the subdirectory's first component must be an entry; without one, an
    /// entry that could be the name or a variant of it (`couldAnswer`).
    func mayHold(name: UnsafeRawBufferPointer, subdirectory: String?) -> Bool {
        guard let rootEntries else { return true }
        if let subdirectory {
            return subdirectory.withUTF8Bytes { sub in
                let first = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(sub)[..<(sub.firstIndex(of: UInt8(ascii: "/")) ?? sub.count)])
                return rootEntries.contains { $0.withUTF8Bytes { sameBytes(UnsafeRawBufferPointer($0), first) } }
            }
        }
        return rootEntries.contains { entry in entry.withUTF8Bytes { Self.couldAnswer(UnsafeRawBufferPointer($0), name) } }
    }

    /// Whether a lookup of `name` could return the entry `entry` (both UTF-8): it is the name,
    /// or the name with a suffix starting with `-` or `~` inserted at a dot after the first
    /// byte or at the end. A variant is that, as CF strips it (`VariantSuffixes.analyse`: the
    /// suffix starts after the first byte and ends at a dot or at the end; docs/search-pattern.md,
    /// "Variants in one directory"); the test lets through more than variants, never fewer.
    static func couldAnswer(_ entry: UnsafeRawBufferPointer, _ name: UnsafeRawBufferPointer) -> Bool {
        if entry.count == name.count { return sameBytes(entry, name) }
        guard !name.isEmpty, entry.count > name.count, entry[0] == name[0] else { return false }
        let suffixLength = entry.count - name.count
        for at in 1...name.count where at == name.count || name[at] == UInt8(ascii: ".") {
            // `entry` = name[..<at] + suffix + name[at...].
            guard entry[at] == UInt8(ascii: "-") || entry[at] == UInt8(ascii: "~") else { continue }
            if sameBytes(UnsafeRawBufferPointer(rebasing: entry[..<at]), UnsafeRawBufferPointer(rebasing: name[..<at])),
               sameBytes(UnsafeRawBufferPointer(rebasing: entry[(at + suffixLength)...]), UnsafeRawBufferPointer(rebasing: name[at...])) {
                return true
            }
        }
        return false
    }
}

/// One yes or no per search step, as the bits of a word: a `[Bool]` was an allocation of its
/// own at every open (docs/performance.md, "First asks and opening, in process"). A step past
/// the 64th answers yes: "may exist" only spares a read, so yes is always safe.
struct StepFlags: Sendable {
    private var bits: UInt64 = 0

    init(_ flags: some Sequence<Bool>) {
        for (step, flag) in flags.enumerated() where flag && step < 64 { bits |= 1 << UInt64(step) }
    }

    subscript(step: Int) -> Bool { step >= 64 || bits >> UInt64(step) & 1 == 1 }
}
