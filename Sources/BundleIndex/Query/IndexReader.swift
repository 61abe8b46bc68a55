import Synchronization

import Glibc

/// An open index, for lookups: the entry point of the library.
///
/// ```swift
/// let index = try IndexReader(path: IndexLocation.default)
/// if let phone = try index.bundle("com.example.phone", context: .foundationLinux) {
///     print(try phone.path(forResource: "logo", ofType: "png") ?? "no logo")
/// }
/// ```
///
/// Safe to share between threads: each call runs in its own LMDB read transaction (the
/// environment is opened with `MDB_NOTLS`). Every error it throws is a `BundleIndexError`.
public final class IndexReader: Sendable {
    let store: IndexStore

    /// Opens the index at `path` read-only. Throws `BundleIndexError` when it is missing, not an
    /// index, of another format version or damaged.
    public init(path: String) throws {
        store = try IndexStore.openForReading(path: path)
    }

    /// A reader for a process that will never write this index (a fresh `bundleidx query`):
    /// the environment is opened `MDB_RDONLY`, which spares LMDB's writer buffers and a second
    /// descriptor of `data.mdb`; a build or watcher in the same process could not join it.
    package init(pathNeverWrittenHere path: String) throws {
        store = try IndexStore.openForReading(path: path, neverWritesHere: true)
    }

    /// The index directory this reader opened.
    public var path: String { store.path }

    /// Maps the whole index into this process now, so that no later lookup pays for touching
    /// a page of it for the first time. Returns the bytes mapped (0 where the kernel cannot:
    /// Linux before 5.14).
    ///
    /// For a long-lived process that will open many bundles of a large index. Each page of
    /// the index a process touches first costs a page fault; on the virtual machines measured
    /// that was 5–9 µs, most of a first open at 1 M resources. Warming costs about 0.4 µs per
    /// 4 KiB page (8–11 ms for the 93 MiB index of 1 M resources, in the page cache), so it
    /// pays once the process would otherwise fault on about one page in fifteen. A
    /// process making a few lookups should not call it. Pages a later commit adds are not
    /// mapped: call it again when `generation()` moves, if wanted. The mapped pages are the
    /// page cache's, shared with every process reading the index; they count in this
    /// process's resident size.
    @discardableResult
    public func warmUp() throws -> Int {
        try store.read { snap in
            guard let inMap = try snap.addressInMap() else { return 0 }
            return store.environment.populateMap(containing: inMap)
        }
    }

    /// A bundle by its path (as given to `build`, or through symbolic links to it), or nil when
    /// the index does not hold it. Opened again before the next commit of the index, the same
    /// path and context give back the bundle opened first (its answers kept in memory too).
    public func bundle(atPath path: String, context: SearchContext = .userDefault) throws -> IndexedBundle? {
        try bundle(atPath: path, context: context, remembering: true)
    }

    /// `bundle(atPath:context:)`; without `remembering` it neither looks among nor adds to the
    /// bundles opened before, for a caller that keeps its own (the batch engine).
    package func bundle(atPath path: String, context: SearchContext, remembering: Bool) throws -> IndexedBundle? {
        // An empty path names no bundle (made absolute it would be the current directory), as
        // `Bundle(path: "")` is nil.
        guard !path.isEmpty else { return nil }
        let absolute = PathText.absolute(path, currentDirectory: ProcessEnvironment.currentDirectory())
        let newest = store.environment.newestTransactionID()
        if remembering, let plan = openedBundles.plan(path: absolute, context: context, newest: newest) {
            return IndexedBundle(reader: self, plan: plan)
        }
        // A local function, not a closure in a constant: that one was boxed on the heap at every
        // open. It captures two enums, not the context: a context's copy retains every field.
        let profile = context.profile, platform = context.platform
        func wanted(_ name: String) -> Bool { BundleInfo.mayRead(infoPlistNamed: name, profile: profile, platform: platform) }
        func read(_ path: String) throws -> (BundleRecord, UInt64)? {
            try store.read { snap in
                guard let record = try snap.bundle(path: path, forQueriesReading: wanted) else { return nil }
                return (record, snap.transactionID)
            }
        }
        // Named through a link: compare resolved paths. The record is moved along, never copied:
        // a copy retains and releases every field.
        guard let found = try read(absolute)
                ?? FileSystem.realPath(absolute).flatMap({ sameBytes($0, absolute) ? nil : try read($0) }) else { return nil }
        let (record, transaction) = found
        let bundle = IndexedBundle(reader: self, record: record, readIn: transaction, context: context)
        if remembering { openedBundles.remember(bundle.plan, path: absolute, transaction: transaction) }
        return bundle
    }

    /// The bundles `bundle(atPath:)` opened in the newest transaction.
    private let openedBundles = OpenedBundles()

    /// What its bundles' plans share (`SharedPlanParts`).
    let planParts = SharedPlanParts()

    /// The bundle whose Info.plist declares `identifier` (the first by path when several do).
    public func bundle(identifier: String, context: SearchContext = .userDefault) throws -> IndexedBundle? {
        try bundle(identifier: identifier, context: context, remembering: true)
    }

    /// `bundle(identifier:context:)`; without `remembering` it neither looks among nor adds to
    /// the bundles opened by identifier before (as `bundle(atPath:context:remembering:)`).
    package func bundle(identifier: String, context: SearchContext, remembering: Bool) throws -> IndexedBundle? {
        let newest = store.environment.newestTransactionID()
        if remembering, let plan = openedByIdentifier.plan(path: identifier, context: context, newest: newest) {
            return IndexedBundle(reader: self, plan: plan)
        }
        let profile = context.profile, platform = context.platform
        func wanted(_ name: String) -> Bool { BundleInfo.mayRead(infoPlistNamed: name, profile: profile, platform: platform) }
        let found: (BundleRecord, UInt64)? = try store.read { snap in
            for path in try snap.bundlePaths(identifier: identifier) {
                if let r = try snap.bundle(path: path, forQueriesReading: wanted) {
                    return (r, snap.transactionID)
                }
            }
            return nil
        }
        guard let found else { return nil }
        let (record, transaction) = found
        let bundle = IndexedBundle(reader: self, record: record, readIn: transaction, context: context)
        if remembering { openedByIdentifier.remember(bundle.plan, path: identifier, transaction: transaction) }
        return bundle
    }

    /// The bundles `bundle(identifier:)` opened in the newest transaction, by identifier:
    /// opening one again cost a read of the identifiers database and of its record each time
    /// (12–14 µs, docs/performance.md, "Opening a bundle").
    private let openedByIdentifier = OpenedBundles()

    /// `bundle(atPath:)` when `reference` looks like a path or names an indexed bundle,
    /// otherwise `bundle(identifier:)`.
    public func bundle(_ reference: String, context: SearchContext = .userDefault) throws -> IndexedBundle? {
        try bundle(reference, context: context, remembering: true)
    }

    /// `bundle(_:context:)`, with `remembering` as `bundle(atPath:context:remembering:)` takes it.
    package func bundle(_ reference: String, context: SearchContext, remembering: Bool) throws -> IndexedBundle? {
        if let b = try bundle(atPath: reference, context: context, remembering: remembering) { return b }
        if reference.utf8.contains(UInt8(ascii: "/")) { return nil }
        return try bundle(identifier: reference, context: context, remembering: remembering)
    }

    /// Every indexed bundle at or below `directory` (all of them when nil), in path order,
    /// answering under `context`. Reads one snapshot.
    public func bundles(under directory: String? = nil, context: SearchContext = .userDefault) throws -> [IndexedBundle] {
        let root = directory.map { PathText.absolute($0, currentDirectory: ProcessEnvironment.currentDirectory()) } ?? "/"
        return try store.read { snap in
            try snap.bundles(under: root, forQueriesReading: { BundleInfo.mayRead(infoPlistNamed: $0, context) })
                .map { IndexedBundle(reader: self, record: $0, readIn: snap.transactionID, context: context) }
        }
    }

    /// Raised by every build and every batch a watcher applies: an `IndexedBundle` reflects
    /// the generation it was opened in (its resources are looked up live, its Info.plist facts
    /// and search list are not) — open it again when this moves.
    ///
    /// Cheap enough to ask before every query: the generation is read again only when LMDB's
    /// newest transaction id moved (a look at the lock file's shared memory, no transaction).
    public func generation() throws -> UInt64 {
        let newest = store.environment.newestTransactionID()
        if let known = lastGeneration.withLock({ $0 }), known.transaction == newest { return known.generation }
        let (transaction, generation) = try store.read { snap in (snap.transactionID, try snap.metaU64(.generation) ?? 0) }
        lastGeneration.withLock { $0 = (transaction, generation) }
        return generation
    }

    /// The id of LMDB's newest committed transaction: every commit moves it (a build, a
    /// watcher's batch, a state write), so a value read from the index stays right while it
    /// stays. A look at the lock file's shared memory, no transaction.
    package func newestTransactionID() -> UInt64 { store.environment.newestTransactionID() }

    /// The id of the commit a read begun now sees; for a few milliseconds of each commit it is
    /// the one before `newestTransactionID()` (`LMDBEnvironment.newestTransactionID`).
    package func visibleTransactionID() throws -> UInt64 { try store.environment.visibleTransactionID() }

    /// Frees this process's slots in the index's reader table (`LMDBEnvironment.endIdleReads`),
    /// for a process about to exit without releasing the reader.
    package func endIdleReads() { store.environment.endIdleReads() }

    /// The generation read last, with the transaction it was read in.
    private let lastGeneration = Mutex<(transaction: UInt64, generation: UInt64)?>(nil)

    /// Where the index's bytes go (`bundleidx stats --detail`): for each LMDB database its
    /// entries, their key and value bytes and the pages it takes, then the same per kind of
    /// record where a database holds several. Reads every record of one snapshot.
    public func storageUse() throws -> [StorageUse] {
        try store.read { try $0.storageUse() }.map {
            StorageUse(database: $0.database, kind: $0.kind, entries: $0.entries, payloadBytes: $0.payloadBytes,
                       pageBytes: $0.pageBytes)
        }
    }

    /// One line of `storageUse()`.
    public struct StorageUse: Sendable, Equatable {
        /// The LMDB database: meta, bundles, identifiers, resources, strings or retired
        /// (docs/index-format.md).
        public let database: String
        /// "all" for the whole database, else a kind of record in it ("directory listings",
        /// "localized Info tables (InfoPlist.strings)", ...).
        public let kind: String
        /// Entries (key and value pairs).
        public let entries: Int
        /// Their keys' and values' bytes.
        public let payloadBytes: Int
        /// For "all": the bytes of the database's B-tree pages, payload, page headers and free
        /// space in pages included; nil for a kind of record.
        public let pageBytes: Int?
    }

    /// What the index holds and who keeps it up to date (`bundleidx stats`).
    public func statistics() throws -> Statistics {
        try store.read { snap in
            let records = try snap.bundles(under: "/")
            // A count, a time or a generation past Int64.max was never written by bundleidx:
            // damage, said as such, where converting it trapped (`bundleidx stats`).
            func bounded(_ key: MetaKey) throws -> UInt64 {
                let value = try snap.metaU64(key) ?? 0
                guard value <= UInt64(Int64.max) else {
                    throw BundleIndexError.corrupt(path: store.path, reason: "its \(key.rawValue) value \(value) is out of range")
                }
                return value
            }
            return Statistics(
                path: store.path, formatVersion: IndexStore.formatVersion, bundles: records.count,
                resourceRecords: try snap.resourceRecordCount(), stringsRecords: try snap.stringsRecordCount(), indexBytes: store.environment.usedBytes(),
                roots: try snap.roots(), declaredBundles: try snap.declaredBundles(), builtAt: try bounded(.builtAt),
                buildMilliseconds: try bounded(.buildSeconds), generation: try bounded(.generation),
                // A watcher's counts are its own to write again (a build does not): shown as
                // they can be, not an error no build repairs.
                watchState: try snap.metaString(.watchState),
                watchedDirectories: Int(clamping: try snap.metaU64(.watchedDirectories) ?? 0),
                unwatchedDirectories: Int(clamping: try snap.metaU64(.unwatchedDirectories) ?? 0),
                watcherPID: Int32(truncatingIfNeeded: try snap.metaU64(.watcherPID) ?? 0))
        }
    }
}

extension IndexReader {
    /// Facts about an index, from `statistics()`.
    public struct Statistics: Sendable {
        /// The index directory.
        public let path: String
        /// The index format version (docs/index-format.md).
        public let formatVersion: UInt32
        /// How many bundles the index holds.
        public let bundles: Int
        /// How many resource records (listings, names of variants, InfoPlist.strings tables) it holds.
        public let resourceRecords: Int
        /// How many strings records (strings tables and entries of larger tables) it holds.
        public let stringsRecords: Int
        /// Bytes in use in `data.mdb`.
        public let indexBytes: Int
        /// The folders built into the index.
        public let roots: [String]
        /// The folders indexed as bundles whatever they hold (`bundleidx build --bundle DIR`).
        public let declaredBundles: [String]
        /// Seconds since 1970 of the last build.
        public let builtAt: UInt64
        /// How long the last build took, in milliseconds.
        public let buildMilliseconds: UInt64
        /// Raised by every build and every batch a watcher applies.
        public let generation: UInt64
        /// Set by `bundleidx watch`: "catching up", "live", "degraded" (watch limit reached) or
        /// "stopped"; nil when no watcher ever ran. A watcher killed without a chance to say so
        /// leaves its last state: `watcherRunning` checks the process.
        public let watchState: String?
        /// Directories the watcher watches with inotify.
        public let watchedDirectories: Int
        /// Directories the watcher could not watch (the inotify limit): rescanned periodically.
        public let unwatchedDirectories: Int
        /// The process id of the watcher that last wrote its state (0: none).
        public let watcherPID: Int32

        /// True when that watcher process is still alive.
        public var watcherRunning: Bool { watcherPID > 0 && kill(watcherPID, 0) == 0 }
    }
}
