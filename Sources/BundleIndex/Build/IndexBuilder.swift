import Glibc

/// scan → store: walks the roots and writes their bundles into the index in one write
/// transaction, replacing whatever the index held for the same roots. Readers see the old
/// index until the commit and the new one after it; a build that dies before committing
/// changes nothing. Every error it throws is a `BundleIndexError`.
public enum IndexBuilder {
    /// Scans `roots` and writes their bundles into the index at `indexPath` (created when
    /// missing), replacing what it held for the same roots; other roots stay as they are.
    /// A bundle the index already holds is read again only when its stamps show a change
    /// (docs/scanning.md, "Incremental builds"); `full` reads every bundle again.
    /// `progress` is called after each bundle, read or unchanged, with the running counts that
    /// end at the summary's `bundles` and `resources`.
    ///
    /// `bundles` are folders to index as bundles whatever they hold (`Bundle(path:)` takes any
    /// folder for one): each is built like a root, and the index remembers them, so later builds
    /// and the watcher keep treating them as bundles (docs/scanning.md, "Which directories are
    /// bundles").
    ///
    /// ```swift
    /// let summary = try IndexBuilder.build(roots: ["/usr/share/apps"], indexPath: IndexLocation.default)
    /// print("\(summary.bundles) bundles, \(summary.resources) resources")
    /// ```
    public static func build(roots: [String], bundles declared: [String] = [], indexPath: String, full: Bool = false,
                             progress: ((_ bundles: Int, _ resources: Int) -> Void)? = nil) throws -> Summary {
        try build(roots: roots, bundles: declared, indexPath: indexPath, full: full, progress: progress, beforeCommit: nil)
    }

    /// `build` with a hook called inside the write transaction just before it commits, for the
    /// crash-safety test that kills a build there (Tests/BuildUntilCommit), and the size of the
    /// map a new environment starts with (`initialMapSize`, bytes), for the test of map growth.
    @_spi(Testing)
    public static func build(roots: [String], bundles declared: [String] = [], indexPath: String, full: Bool = false,
                             progress: ((_ bundles: Int, _ resources: Int) -> Void)?,
                             beforeCommit: (() -> Void)?, initialMapSize: Int? = nil) throws -> Summary {
        let start = monotonicSeconds()
        let cwd = ProcessEnvironment.currentDirectory()
        var absolute: [String] = []
        var declaredNow: [String] = []
        for root in roots + declared {
            let path = try FileSystem.rootDirectory(root, currentDirectory: cwd)
            absolute.append(path)
            if absolute.count > roots.count { declaredNow.append(path) }
        }
        // A root inside another root is covered by it (and would otherwise be removed again).
        let unique = PathSet(absolute).filter { r in !absolute.contains { PathText.isInside(r, $0) } }
            .sorted(by: byteOrder)

        let store: IndexStore
        var replaced: String?
        do {
            store = try IndexStore.openForWriting(path: indexPath, mapSize: initialMapSize)
        } catch let error as BundleIndexError where IndexStore.isReplaceable(error, path: indexPath) {
            // An index of ours that cannot be used (another format version, damage): the advice
            // "rebuild it with bundleidx build" must work, so it is replaced, and the summary says so.
            // Never under a running watcher: a replacement deleted its files from under it.
            if IndexStore.hasLiveWatcher(path: indexPath) { throw Self.watched(indexPath) }
            try IndexStore.removeIndexFiles(path: indexPath)
            switch error {
            case .unsupportedVersion(_, let found, let supported):
                replaced = "it had format version \(found); this bundleidx writes version \(supported)"
            case .corrupt(_, let reason): replaced = "it was damaged: \(reason)"
            case .notAnIndex(_, let reason): replaced = reason
            default: replaced = error.description
            }
            store = try IndexStore.openForWriting(path: indexPath, mapSize: initialMapSize)
        }
        // A watcher keeps its own list of the bundles it indexed: bundles written behind its back
        // would stay after they are deleted. Changes reach a watched index through the watcher.
        if store.hasLiveWatcher() { throw Self.watched(indexPath) }
        let began = wallClockNanoseconds()
        var counts = Counts()
        var unreadable = 0, skipped = 0
        var warnings: [String] = []
        var kept: [String] = []
        // `emptied`: what the index held is dropped first and every bundle read again.
        func write(emptied: Bool) throws {
            try store.write(emptied: emptied) { writer in
                // A write that outgrew the map runs again from here after the map grew (IndexStore.write).
                (counts, unreadable, skipped, warnings, kept) = (Counts(), 0, 0, [], [])
                for path in declaredNow { try writer.addDeclaredBundle(path) }
                let declaredBundles = PathSet(try writer.declaredBundles())
                for root in unique {
                    // Bundles written again keep their ids (IndexWriter.addBundle): a reader that
                    // opened one before this build and reads after it still finds its resources.
                    // What is not found again is removed after the scan.
                    let indexed = try writer.bundlePaths(under: root)
                    var vanished = PathSet(indexed)
                    // Bundles are scanned on a second thread, up to two ahead of the writing
                    // (ScanPipeline); unless the build is full, that thread also tells which bundles
                    // the index holds unchanged, checked ahead of it on a third (UnchangedBundlesAhead).
                    let report = try ScanPipeline.run(root: root, declaredBundles: declaredBundles,
                                                      unchangedIn: full || emptied ? nil : store, indexed: indexed) { item in
                        vanished.remove(item.path)
                        switch item {
                        case .unchanged(_, let resources):
                            counts.count(unchanged: resources)
                        case .scanned(let bundle):
                            counts.count(read: bundle.resourceCount)
                            // A bundle scanned only in part keeps the records of its last complete build.
                            if !(try writer.addBundleUnlessPartial(bundle, root: root, scanBegan: began)) { kept.append(bundle.path) }
                        }
                        progress?(counts.bundles, counts.resources)
                    }
                    unreadable += report.unreadableDirectories
                    skipped += report.skippedNames
                    warnings += report.warnings
                    for path in vanished.sorted(by: byteOrder) {
                        if IndexWriter.isHidden(path, byUnreadable: report.unreadablePaths) {
                            kept.append(path)
                        } else {
                            try writer.removeBundle(path: path)
                            counts.removed += 1
                        }
                    }
                    try writer.addRoot(root)
                }
                try writer.setMeta(.builtAt, u64: began / 1_000_000_000)
                try writer.setMeta(.buildSeconds, u64: UInt64((monotonicSeconds() - start) * 1000))
                try writer.bumpGeneration()
                beforeCommit?()
            }
        }
        do {
            try write(emptied: false)
        } catch BundleIndexError.corrupt(let path, let reason) where replaced == nil
                    && IndexStore.isReplaceable(.corrupt(path: path, reason: reason), path: indexPath) {
            // A record the build had to read (a bundle's, the roots) is damaged where LMDB saw
            // nothing wrong: "rebuild it with bundleidx build" must work here too, so the build
            // starts again from an emptied index, in one commit, and the summary says so.
            replaced = "it was damaged: \(reason)"
            try write(emptied: true)
        }
        return Summary(roots: unique, bundles: counts.bundles, resources: counts.resources,
                       bundlesRead: counts.read, bundlesUnchanged: counts.unchanged, bundlesRemoved: counts.removed,
                       seconds: monotonicSeconds() - start,
                       indexBytes: store.environment.usedBytes(), warnings: warnings,
                       unreadableDirectories: unreadable, skippedNames: skipped, replacedIndex: replaced,
                       keptUnreadable: kept.sorted(by: byteOrder))
    }

    /// The running counts of a build: what progress shows and the summary ends with.
    private struct Counts {
        var read = 0, unchanged = 0, removed = 0, resources = 0
        var bundles: Int { read + unchanged }

        mutating func count(read resources: Int) {
            read += 1
            self.resources += resources
        }

        mutating func count(unchanged resources: Int) {
            unchanged += 1
            self.resources += resources
        }
    }
}

extension IndexBuilder {
    /// A watcher keeps the index at `path`: a build would write behind its back.
    static func watched(_ path: String) -> BundleIndexError {
        .busy(path: path, reason: "a bundleidx watch keeps this index up to date; "
              + "let it apply changes (bundleidx sync ROOT waits for them) or stop it to build")
    }

    /// What a build did (`bundleidx build` prints it).
    public struct Summary: Sendable {
        /// The roots built, absolute, without those inside another root.
        public let roots: [String]
        /// Bundles the index holds for the roots now: read again plus unchanged.
        public let bundles: Int
        /// Directory entries those bundles hold (files, folders and links inside them; a nested
        /// bundle's entries count for it and for the bundle around it).
        public let resources: Int
        /// Bundles scanned by this build: new, changed, or all of them in a full build.
        public let bundlesRead: Int
        /// Bundles whose records were kept because their stamps showed no change.
        public let bundlesUnchanged: Int
        /// Bundles removed from the index because they are gone (or no bundles any more).
        public let bundlesRemoved: Int
        /// Wall-clock seconds the build took.
        public let seconds: Double
        /// Bytes in use in the index afterwards.
        public let indexBytes: Int
        /// Problems with single files (an unreadable Info.plist, …), one sentence each.
        public let warnings: [String]
        /// Directories that could not be read (permissions); their contents are not indexed.
        public let unreadableDirectories: Int
        /// Names left out because they are not valid UTF-8 (Foundation cannot name them either).
        public let skippedNames: Int
        /// Why the index that was there could not be used, when the build replaced it (another
        /// format version, damage); nil otherwise. Roots it held besides these are not in the new one.
        public let replacedIndex: String?
        /// Bundles that keep what the index held for them because a folder of theirs (or one
        /// above them) could not be read this time; their paths (docs/scanning.md, "Bad input").
        public let keptUnreadable: [String]
    }
}
