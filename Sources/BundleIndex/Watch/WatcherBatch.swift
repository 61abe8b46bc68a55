#if canImport(Glibc)
import Glibc

extension IndexWatcher {
    /// Applies everything pending in one write transaction, then answers the sync cookies it
    /// covered. Readers see the batch all at once.
    func applyPending() throws {
        settleUnpairedMoves()
        if !pending.rootWays.isEmpty {
            let (ways, moved) = (pending.rootWays, pending.rootWaysMoved)
            (pending.rootWays, pending.rootWaysMoved) = ([], [])
            followRootWays(ways, moved: moved)
        }
        guard !pending.isEmpty else {
            pending = PendingChanges()
            // A folder watched again (a retry, a way folder made readable) with nothing else to
            // do: the state said "degraded" for good.
            if liveOrDegraded != writtenState { try setState(liveOrDegraded) }
            return
        }
        let claimed = claimCookies(pending.cookies, readingAgain: true)
        var committed = false
        defer { finishCookies(claimed, committed: committed) }
        let batch = pending
        pending = PendingChanges()
        let started = monotonicSeconds()
        if batch.overflow {
            try rescanEverything()
        } else {
            var rescanned = PathSet()
            var scannedDirectories: [String] = []
            let bundlesBefore = bundles
            try store.write { writer in
                // A batch that outgrew the map runs again from here after the map grew.
                (bundles, rescanned, scannedDirectories) = (bundlesBefore, [], [])
                for dir in batch.children.keys.sorted(by: byteOrder) {
                    for name in batch.children[dir]!.sorted(by: byteOrder) {
                        try lookAgain(at: PathText.child(name, of: dir), writer, &rescanned, &scannedDirectories)
                    }
                }
                for path in batch.bundles.sorted(by: byteOrder) where !rescanned.contains(path) && bundles.contains(path) {
                    try rescanBundle(path, writer, &rescanned, &scannedDirectories)
                }
                try writer.bumpGeneration()
                // `bundleidx stats` shows how many folders are watched (the count of the batch
                // before: this batch's new folders get their watches after it commits).
                try writer.setMeta(.watchedDirectories, u64: UInt64(tree.count))
                try writer.setMeta(.unwatchedDirectories, u64: UInt64(tree.unwatched.count))
            }
            watchScanned(scannedDirectories)
            unwatchUnlinkedTargets()
            if liveOrDegraded != writtenState { try setState(liveOrDegraded) }
            logger.debug("batch applied", metadata: ["bundles": "\(rescanned.count)",
                                                    "seconds": "\(monotonicSeconds() - started)"])
        }
        committed = true
        let generation = try store.read { try $0.metaU64(.generation) } ?? 0
        onBatch?(generation)
    }

    /// `path` appeared, vanished or moved: find the bundles at and below it again.
    private func lookAgain(at path: String, _ writer: IndexWriter, _ rescanned: inout PathSet,
                           _ scannedDirectories: inout [String]) throws {
        let before = bundles.filter { PathText.isSameOrInside($0, path) }
        // A root may be a link to a folder (as a build walks it); so may a library's `Current`.
        guard FileSystem.isRealDirectory(path) || (isRoot(path) && FileSystem.isDirectory(path))
                || TreeWalker.isLibraryCurrentLink(atPath: path) else {
            // Behind a folder this process may not search: hidden, not gone (as a build keeps it).
            if FileSystem.isHidden(path) {
                warnKept(before.sorted(by: byteOrder))
                return
            }
            for gone in before { try writer.removeBundle(path: gone); forgetBundle(gone) }
            return
        }
        var walker = makeWalker()
        let already = rescanned
        walker.shouldScan = { !already.contains($0) }
        var visited: [String] = []
        walker.visited = { visited.append($0) }
        defer { scannedDirectories += visited }
        let now = wallClockNanoseconds()
        var written: [String] = []
        var kept: [String] = []
        let report = try walker.walk(root: path) { bundle in
            if !(try writer.addBundleUnlessPartial(bundle, root: root(of: bundle.path), scanBegan: now)) { kept.append(bundle.path) }
            noteOutsideFolders(of: bundle, scanBegan: now)
            written.append(bundle.path)
        }
        rescanned.formUnion(written)
        let found = PathSet(report.found)
        for gone in before where !found.contains(gone) {
            if IndexWriter.isHidden(gone, byUnreadable: report.unreadablePaths) {
                kept.append(gone)
            } else {
                try writer.removeBundle(path: gone)
                forgetBundle(gone)
            }
        }
        bundles.formUnion(report.found)
        for w in report.warnings { logger.warning("\(w)") }
        warnKept(kept)
    }

    /// Bundles that kept their records because a folder of theirs, or one above them, could not
    /// be read (docs/watching.md, "Folders that cannot be read").
    func warnKept(_ kept: [String]) {
        for path in kept {
            logger.warning("\(path) could not be read in full; the index keeps what it held for it")
        }
    }

    /// A bundle's tree changed: scan it again, or drop it when it is gone or no bundle any more.
    private func rescanBundle(_ path: String, _ writer: IndexWriter, _ rescanned: inout PathSet,
                              _ scannedDirectories: inout [String]) throws {
        // A library's `Versions/Current` holds the bundles nested in the version it names a
        // second time, under its own path (the walk follows that link): a change in the
        // version — the events name its real path — may add or remove them there too.
        if TreeWalker.isLibraryCurrentLink(atPath: path) {
            try lookAgain(at: path, writer, &rescanned, &scannedDirectories)
            return
        }
        rescanned.insert(path)
        var skipped = 0
        let began = wallClockNanoseconds()
        // A root or a library's `Versions/Current` may be a link the walk follows.
        let exists = FileSystem.isRealDirectory(path) || isRoot(path) || TreeWalker.isLibraryCurrentLink(atPath: path)
        var listing: DirectoryListing?
        if exists {
            // A shortage of descriptors or memory stops the batch (nothing is committed).
            do { listing = try DirectoryReader.listing(path, skippedNames: &skipped) } catch is DirectoryReadError {}
        }
        if let listing, try makeWalker().isBundle(path, entries: listing.entries, skippedNames: &skipped) {
            var scanner = BundleScanner(bundlePath: path)
            scanner.listingCache[path] = listing
            let bundle = try scanner.scan()
            // Folders reached through links are watched under their own paths, as the walk
            // watches them (`WatchedTree.watch`).
            scannedDirectories += scanner.listed.keys.filter { !scanner.reachedThroughLinks.contains($0) }
            if !(try writer.addBundleUnlessPartial(bundle, root: root(of: path), scanBegan: began)) { warnKept([path]) }
            noteOutsideFolders(of: bundle, scanBegan: began)
            for w in bundle.warnings { logger.warning("\(w)") }
            return
        }
        // A bundle folder that is there but cannot be listed, or that a folder above it hides,
        // is not a bundle that went away.
        if listing == nil && (FileSystem.isRealDirectory(path) || FileSystem.isHidden(path)) {
            warnKept(bundles.filter { PathText.isSameOrInside($0, path) }.sorted(by: byteOrder))
            return
        }
        // A folder that is no bundle any more may still hold bundles (`O/Resources/English.lproj
        // /P.bundle` once `O` lost its Info-gnustep.plist): the walk from it keeps them.
        if listing != nil {
            try lookAgain(at: path, writer, &rescanned, &scannedDirectories)
            return
        }
        for gone in bundles.filter({ PathText.isSameOrInside($0, path) }) {
            try writer.removeBundle(path: gone)
            forgetBundle(gone)
        }
    }

    /// `path` is no bundle any more: no batch reads it, and nothing is watched for it.
    private func forgetBundle(_ path: String) {
        bundles.remove(path)
        forgetLinks(of: path)
        noteStampLookups(of: path, paths: [])
    }

    /// Every directory a batch scanned must be watched. One that is not — created and then
    /// moved before its creation event was read, so its watch went to a path that no longer
    /// existed — gets its watch now, and is looked at again in the next batch, since changes
    /// made between the scan and this watch produced no event.
    func watchScanned(_ directories: [String]) {
        var added = false
        for dir in directories where FileSystem.isRealDirectory(dir) && tree.watch(dir) {
            folderChanged(dir)
            added = true
        }
        if added { pending.touched(at: monotonicSeconds()) }
    }

    /// After an overflow nothing about the tree can be trusted: watch everything again and
    /// rebuild every root.
    func rescanEverything() throws {
        let started = monotonicSeconds()
        // The queue overflowed, so cookie events may be lost too. Cookies already in a root are
        // taken out before the rescan and answered after it: it starts after they were created
        // and so covers every change made before them.
        tree.reset()
        movedFrom = [:]
        cookiesRemoved = []
        linkedBy.removeAll()
        linkTargets = [:]
        unlinkedTargets = []
        stampInterests = StampInterests()
        rootWays = StampInterests()
        realRoots = Self.realPaths(of: roots)
        for r in roots { tree.watchRecursively(r) }
        for r in roots { noteRootWay(r) }
        reportLimit()
        // Listed once the roots are watched again (see `catchUp`).
        let claimed = claimCookies(cookiesInRoots(), readingAgain: false)
        var committed = false
        defer { finishCookies(claimed, committed: committed) }
        var found: PathSet = []
        var kept: [String] = []
        let began = wallClockNanoseconds()
        try store.write { writer in
            (found, kept) = ([], [])   // a rescan that outgrew the map runs again after it grew
            for r in roots {
                // Bundles written again keep their ids (see IndexBuilder.build); the rest go,
                // unless a folder that could not be read hides them.
                let before = try writer.bundlePaths(under: r)
                let report = try makeWalker().walk(root: r) { bundle in
                    if !(try writer.addBundleUnlessPartial(bundle, root: r, scanBegan: began)) { kept.append(bundle.path) }
                    noteOutsideFolders(of: bundle, scanBegan: began)
                }
                let seen = PathSet(report.found)
                for path in before where !seen.contains(path) {
                    if IndexWriter.isHidden(path, byUnreadable: report.unreadablePaths) {
                        kept.append(path)
                        found.insert(path)
                    } else {
                        try writer.removeBundle(path: path)
                    }
                }
                found.formUnion(report.found)
            }
            try writer.bumpGeneration()
        }
        committed = true
        bundles = found
        try setState(liveOrDegraded)   // the counts of watched folders too
        warnKept(kept)
        logger.notice("rescanned every root after the overflow", metadata: [
            "bundles": "\(found.count)", "seconds": "\(monotonicSeconds() - started)"])
    }

    /// The sync cookies at `paths`, taken or left (`ClaimedCookie`), at most `takenPerBatch` of
    /// them taken. A cookie changed its folder's time when it was made, and a taken one again
    /// when it was removed: with `readingAgain` (a batch; a catch-up or a rescan reads
    /// everything after this) the bundles that record that time are read again.
    func claimCookies(_ paths: [String], readingAgain: Bool) -> [ClaimedCookie] {
        var claimed: [ClaimedCookie] = []
        var taken = 0
        for path in paths {
            guard let cookie = ClaimedCookie(path, take: taken < ClaimedCookie.takenPerBatch) else { continue }
            if cookie.isTaken { taken += 1 }
            if cookie.removedFirst { cookiesRemoved.insert(path) }
            // Taken, it was removed just now; left, it was made there (a folder named like a
            // cookie stays): either way the folder's time changed.
            if readingAgain { readAgainBundles(recording: PathText.parent(of: path), entry: PathText.lastComponent(path)) }
            claimed.append(cookie)
        }
        return claimed
    }

    /// Answers the cookies a batch claimed, or lets go of them unanswered when it did not commit.
    /// A cookie not removed first (a left one) is removed only now, which changes its folder's
    /// time: the next batch reads again the bundles that record it.
    func finishCookies(_ claimed: [ClaimedCookie], committed: Bool) {
        for cookie in claimed where cookie.finish(answering: committed) {
            cookiesRemoved.insert(cookie.path)
            readAgainBundles(recording: PathText.parent(of: cookie.path), entry: PathText.lastComponent(cookie.path))
            pending.touched(at: monotonicSeconds())
        }
    }

    /// Sync cookies lying in the roots (`bundleidx sync` drops them; one whose `sync` was killed
    /// stays until a watcher removes it).
    func cookiesInRoots() -> [String] {
        roots.flatMap(cookies(in:))
    }

    /// Sync cookies lying in `root`.
    func cookies(in root: String) -> [String] {
        var skipped = 0
        return ((try? DirectoryReader.listAll(root, skippedNames: &skipped)) ?? [])
            .filter { $0.hasPrefix(SyncCookie.prefix) }.map { root + "/" + $0 }
    }

    func root(of path: String) -> String {
        roots.first { PathText.isSameOrInside(path, $0) } ?? path
    }
}
#endif
