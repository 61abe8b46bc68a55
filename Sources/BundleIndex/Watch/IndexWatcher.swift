#if canImport(Glibc)
import Glibc
import Logging

/// watch → store: keeps an index exact while files change. inotify watches every real
/// directory under the roots (watch first, then scan); events are coalesced into rescans of
/// the bundles they touch and of the directories where bundles may have appeared or gone, and
/// applied in one write transaction per batch (readers see a batch completely or not at all).
///
/// ```swift
/// let watcher = try IndexWatcher(roots: ["/apps"], indexPath: IndexLocation.default,
///                                logger: Logger(label: "bundleidx"))
/// try watcher.catchUp()            // the index now matches the disk
/// try watcher.run(stopFD: pipeFD)  // until something is written to the pipe
/// ```
///
/// One process at a time should watch an index; `bundleidx watch` is this class with signal
/// handling. Every error it throws is a `BundleIndexError`.
public final class IndexWatcher {
    /// Settings of a watcher (docs/watching.md).
    public struct Options: Sendable {
        /// Apply a batch once no event has arrived for this long (seconds).
        public var settle = 0.02
        /// …or once the oldest pending event is this old, however busy the tree is.
        public var maxDelay = 0.5
        /// In degraded mode (watch limit reached), how often unwatched directories are rescanned.
        public var rescanInterval = 30.0
        /// The defaults above.
        public init() {}
    }

    /// The watched roots, absolute.
    public let roots: [String]
    let store: IndexStore
    let options: Options
    let inotify: Inotify
    let tree: WatchedTree
    var logger: Logger
    /// Indexed bundle paths (kept in step with the index).
    var bundles: PathSet = []
    /// Real directories outside a bundle that its symbolic links lead to → the bundles that
    /// index them under their own paths (docs/watching.md, "Links out of a bundle").
    var linkedBy = LinkTargetMap()
    /// `linkedBy` the other way round: bundle → the targets recorded for it.
    var linkTargets: PathMap<[String]> = [:]
    /// Targets the current batch found no bundle linking to (`unwatchUnlinkedTargets`).
    var unlinkedTargets: PathSet = []
    /// Sync cookies this watcher removed, whose removal events are still to come: the removal
    /// of any other (by a sync, by hand) changed its folder's time unseen (`record`).
    var cookiesRemoved: PathSet = []
    /// The folders bundles' stamps look up outside them, with the entries looked up
    /// (docs/watching.md, "Links not followed").
    var stampInterests = StampInterests()
    /// Each root with its real path, for naming real folders as events name them (followed
    /// again when a root's way changes, `followRootWays`).
    var realRoots: [(root: String, real: String)]
    /// The entries the resolution of each root's path looks up, by folder (`noteRootWay`).
    var rootWays = StampInterests()
    /// Folders indexed as bundles whatever they hold (`bundleidx build --bundle`), read once.
    let declaredBundles: PathSet
    var pending = PendingChanges()
    /// MOVED_FROM halves waiting for their MOVED_TO, by cookie.
    var movedFrom: [UInt32: (directory: String, name: String, isDirectory: Bool)] = [:]
    var lastDegradedRescan = 0.0
    /// The state `setState` wrote last.
    var writtenState = ""
    /// How many folders below a link's target outside the roots get watches (a test sets fewer).
    var linkTargetFolders = BundleScanner.maxRepeatedDirectories
    /// Whether the watch limit was reported (`reportLimit` says it once).
    var limitReported = false
    /// How many times the kernel's queue overflowed (each one forced a full rescan).
    var overflows = 0
    /// Called after every applied batch, with the index generation it committed.
    public var onBatch: ((_ generation: UInt64) -> Void)?
    #if DEBUG
    /// Test seam, compiled only in debug builds: called with a bundle just scanned, before the
    /// targets of its links get their watches (the window `noteOutsideFolders` closes).
    var beforeWatchingTargets: ((_ bundle: String) -> Void)?
    #endif
    /// The mount table as it was before the first watch (`MountTable`): a mount made while the
    /// watcher caught up is a change at the loop's first look.
    let mounts = MountTable()
    /// Tests set this: while the file exists the watcher does not read its inotify queue.
    var pauseFile: String?
    /// Reads the inotify queue into memory while the watcher works (created by `run`).
    var pump: EventPump?
    /// The open `watch.lock` of the index folder, locked with `flock` for the watcher's life.
    private let ownership: Int32

    deinit { close(ownership) }

    /// One watcher per index: two would each mark the index "stopped" when they end and fight
    /// over its contents. The lock is the kernel's (`flock`), so it dies with its process.
    private static func claim(_ indexPath: String) throws -> Int32 {
        let path = indexPath + "/watch.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else { throw BundleIndexError.systemCall("open \(path)") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw BundleIndexError.insecure(path: indexPath, reason: "watch.lock is not a regular file")
        }
        // `sync --index` and `build` ask whether a watcher holds the lock by taking it shared
        // for an instant: a watcher starting then must not take that for another watcher (it
        // exited 5). A watcher holds it for its life, so 50 ms of retries tell the two apart.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            tries += 1
            guard errno == EWOULDBLOCK, tries < 50 else {
                close(fd)
                throw BundleIndexError.busy(path: indexPath, reason: "another bundleidx watch keeps this index; stop it first")
            }
            usleep(1_000)
        }
        return fd
    }

    /// Opens the index at `indexPath` for writing (creating it when missing) and sets up inotify
    /// for `roots`, which must be directories. Nothing is watched or scanned until `catchUp()`.
    public init(roots: [String], indexPath: String, options: Options = Options(), logger: Logger) throws {
        let cwd = ProcessEnvironment.currentDirectory()
        // As for a build: "" is no root, and a `stat` short of memory is that error, not "no such
        // directory"; a root's real path that could not be read for want of memory stops here.
        let shortages = ShortageLog.mark()
        let absolute = try roots.map { try FileSystem.rootDirectory($0, currentDirectory: cwd) }
        self.roots = absolute.sorted(by: byteOrder)
        self.realRoots = Self.realPaths(of: self.roots)
        try ShortageLog.throwIfNoted(since: shortages)
        self.store = try IndexStore.openForWriting(path: indexPath)
        self.ownership = try Self.claim(indexPath)
        self.options = options
        self.inotify = try Inotify()
        self.tree = WatchedTree(inotify: inotify)
        tree.followedLinks = PathSet(self.roots)
        tree.roots = self.roots
        self.logger = logger
        self.declaredBundles = PathSet(try store.read { try $0.declaredBundles() })
    }

    /// Each of `roots` with its real path (those that have one).
    static func realPaths(of roots: [String]) -> [(root: String, real: String)] {
        roots.compactMap { root in FileSystem.realPath(root).map { (root, $0) } }
    }

    /// The real path recorded for `root` (`realRoots`).
    func realPath(ofRoot root: String) -> String? {
        realRoots.first { sameBytes($0.root, root) }?.real
    }

    /// A tree walker that knows the folders `build --bundle` declared bundles.
    func makeWalker() -> TreeWalker {
        var walker = TreeWalker()
        walker.declaredBundles = declaredBundles
        return walker
    }

    // MARK: - catching up

    /// Watches every directory, then brings the index in line with the disk: bundles whose
    /// stamps (directory and parsed-file change times) are unchanged are kept, changed and new ones
    /// scanned, vanished ones removed. After a crash this is what makes the index exact again.
    public func catchUp() throws {
        // A folder that could not be listed for want of descriptors or memory would be left
        // unwatched: the watcher stops with the error (`ShortageLog`).
        let shortages = ShortageLog.mark()
        try setState("catching up")
        for root in roots { tree.watchRecursively(root) }
        for root in roots { noteRootWay(root) }
        reportLimit()
        try ShortageLog.throwIfNoted(since: shortages)
        // Cookies already in the roots — a sync waiting for this watcher, or one killed before
        // its watcher saw it — are taken out before the catch-up reads the roots, and answered
        // once it has committed: it started after they were made, so it covers every change
        // made before them. Listed after the roots'
        // watches: a cookie made in between was neither listed nor seen (a sync at a watcher's
        // start timed out once in 300 runs).
        let claimed = claimCookies(cookiesInRoots(), readingAgain: false)
        var committed = false
        defer { finishCookies(claimed, committed: committed) }
        let started = monotonicSeconds()
        var scanned = 0, kept = 0, removed = 0
        var keptUnreadable: [String] = []
        let bundlesBefore = bundles
        let began = wallClockNanoseconds()
        try store.write { writer in
            // A catch-up that outgrew the map runs again from here after the map grew.
            (scanned, kept, removed, keptUnreadable, bundles) = (0, 0, 0, [], bundlesBefore)
            for root in roots {
                var indexed: PathMap<BundleRecord> = [:]
                for record in try writer.bundleRecords(under: root) { indexed[record.path] = record }
                var walker = makeWalker()
                // Each bundle kept, with the paths of its directory records, for its links out
                // and its stamps' lookups below.
                var keptBundles: PathMap<(record: BundleRecord, directories: [String])> = [:]
                walker.shouldScan = { path in
                    guard let record = indexed[path], let disk = try? writer.diskStamps(of: record),
                          !disk.stamps.isEmpty, Self.unchanged(disk.stamps, in: record.path, scanBegan: record.scanBegan)
                    else { return true }
                    keptBundles[path] = (record, disk.directories)
                    kept += 1
                    return false
                }
                var scannedNow: PathSet = []
                let report = try walker.walk(root: root) { bundle in
                    if !(try writer.addBundleUnlessPartial(bundle, root: root, scanBegan: began)) {
                        keptUnreadable.append(bundle.path)
                    }
                    noteOutsideFolders(of: bundle, scanBegan: began)
                    scannedNow.insert(bundle.path)
                    scanned += 1
                }
                var found = PathSet(report.found)
                // Kept bundles were not scanned: their links out are found from their records.
                for (path, (record, directories)) in keptBundles where found.contains(path) && !scannedNow.contains(path) {
                    noteOutsideFolders(of: path, targets: BundleScanner.outsideTargets(bundlePath: path, directories: directories),
                                       paths: directories + record.stamps.map(\.path),
                                       stamps: { try? writer.diskStamps(of: record).stamps }, scanBegan: record.scanBegan)
                }
                for path in indexed.keys where !found.contains(path) {
                    // Hidden by a folder that cannot be read: kept, and still watched for.
                    if IndexWriter.isHidden(path, byUnreadable: report.unreadablePaths) {
                        keptUnreadable.append(path)
                        found.insert(path)
                        continue
                    }
                    try writer.removeBundle(path: path)
                    removed += 1
                }
                bundles.formUnion(found)
                try writer.addRoot(root)
            }
            try writer.bumpGeneration()
        }
        committed = true
        warnKept(keptUnreadable.sorted(by: byteOrder))
        unwatchUnlinkedTargets()
        try ShortageLog.throwIfNoted(since: shortages)
        try setState(liveOrDegraded)
        logger.info("caught up", metadata: ["kept": "\(kept)", "scanned": "\(scanned)", "removed": "\(removed)",
                                            "watches": "\(tree.count)",
                                            "seconds": "\(monotonicSeconds() - started)"])
    }

    /// True when every stamp, relative to `bundle`, is older than the scan that read it by
    /// more than a clock tick (`FileStamp.isSettled`) and still matches the disk.
    static func unchanged(_ stamps: [FileStamp], in bundle: String, scanBegan: UInt64) -> Bool {
        stamps.allSatisfy { FileStamp.isSettled($0.changeTime, scanBegan: scanBegan) } && FileStamp.allMatch(stamps, in: bundle)
    }

    // MARK: - the loop

    /// Applies changes as they happen until `stopFD` (the read end of a pipe, say) becomes
    /// readable; then applies what is pending, marks the index "stopped" and returns. Call
    /// `catchUp()` first.
    public func run(stopFD: Int32) throws {
        let pump = EventPump(inotify: inotify, pauseFile: pauseFile)
        self.pump = pump
        pump.start()
        defer { pump.stop(); self.pump = nil }
        // Mounts make no inotify event (`MountTable`); without the table, they go unseen. A mount
        // made since the table was read (while catching up) is handled at once.
        var lookAtMounts = mounts != nil
        while true {
            // Watches set up while events are recorded, outside a batch's transaction: a folder
            // that could not be listed for want of descriptors or memory stops the watcher, as a
            // batch does (`ShortageLog`); its next start watches and catches up again.
            let shortages = ShortageLog.mark()
            var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: pump.wakeFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: mounts?.fd ?? -1, events: Int16(POLLPRI), revents: 0)]
            let n = poll(&fds, nfds_t(fds.count), nextTimeout())
            if n < 0 && errno != EINTR { throw BundleIndexError.systemCall("poll") }
            try drainEvents()
            if let mounts, lookAtMounts || fds[2].revents & Int16(POLLPRI | POLLERR) != 0 {
                lookAtMounts = false
                let points = mounts.changes()
                if !points.isEmpty {
                    self.mountsChanged(points)
                    pending.touched(at: monotonicSeconds())
                }
            }
            if fds[0].revents != 0 {
                try applyPending()
                try setState("stopped")
                return
            }
            try applyIfDue()
            try ShortageLog.throwIfNoted(since: shortages)
        }
    }

    /// Reads and records every queued event.
    func drainEvents() throws {
        let events = try pump?.take() ?? inotify.readEvents()
        guard !events.isEmpty else { return }
        let now = monotonicSeconds()
        for e in events { record(e) }
        pending.touched(at: now)
    }

    /// Applies a batch when the tree has settled or the oldest event waited long enough.
    func applyIfDue() throws {
        let now = monotonicSeconds()
        if !tree.unwatched.isEmpty && now - lastDegradedRescan >= options.rescanInterval {
            lastDegradedRescan = now
            // Every folder unwatched until now is looked at again, those that got their watch
            // back in this retry too: what changed in them while they had none made no event.
            let unwatched = Array(tree.unwatched)
            tree.retryUnwatched()
            for dir in unwatched {
                lookAgain(atFolder: dir)
                if isRoot(dir) {
                    releaseCookiesOfReturned(dir)
                    pending.rootWay(dir)
                }
            }
            pending.touched(at: now)
        }
        // Events that made no work (a plain file's close-write) leave nothing to wait for.
        if pending.isEmpty && movedFrom.isEmpty { pending = PendingChanges(); return }
        guard let first = pending.firstEvent, let last = pending.lastEvent else { return }
        if now - last >= options.settle || now - first >= options.maxDelay { try applyPending() }
    }

    private func nextTimeout() -> Int32 {
        guard let first = pending.firstEvent, let last = pending.lastEvent else {
            // Capped at a second, as when nothing is unwatched: a long --rescan-interval in
            // milliseconds overflowed an Int32 (a trap).
            return tree.unwatched.isEmpty ? 1000 : Int32(max(10, min(1000, options.rescanInterval * 1000)))
        }
        let now = monotonicSeconds()
        let wait = min(options.settle - (now - last), options.maxDelay - (now - first))
        return Int32(max(0, min(1000, wait * 1000)))
    }

    /// Looks at the folder `dir` again in the next batch, a root too (whose parent lies
    /// outside every root, where `markChanged` looks for no bundle).
    func lookAgain(atFolder dir: String) {
        if isRoot(dir) {
            for bundle in stampInterests.bundles(lookingInto: dir) { pending.bundles.insert(bundle) }
            pending.child(PathText.lastComponent(dir), of: PathText.parent(of: dir))
        } else {
            folderChanged(dir)
        }
    }

    /// The folder `dir`'s own entry in its parent changed (created, gone, moved, its mode or
    /// times): `markChanged` of that entry.
    func folderChanged(_ dir: String) {
        // Its mode or owner may let a resolution through it go further, or not as far.
        for bundle in stampInterests.bundles(lookingInto: dir) { pending.bundles.insert(bundle) }
        for root in rootWays.bundles(lookingInto: dir) { pending.rootWay(root) }
        markChanged(PathText.parent(of: dir), name: PathText.lastComponent(dir))
    }

    /// A root watched again after it went away: a `sync` that dropped its cookie there before
    /// the watch made no event. The batch that looks at the root again covers every change
    /// made before the cookie, so the cookies found now are released with it.
    func releaseCookiesOfReturned(_ root: String) {
        guard !tree.unwatched.contains(root) else { return }
        pending.cookies += cookies(in: root)
    }

    /// "live", or "degraded" while some folder has no watch (the watch limit, a root gone).
    var liveOrDegraded: String { tree.unwatched.isEmpty ? "live" : "degraded" }


    func setState(_ state: String) throws {
        writtenState = state
        try store.write { writer in
            try writer.setMeta(.watchState, bytes: Array(state.utf8))
            try writer.setMeta(.watchedDirectories, u64: UInt64(tree.count))
            try writer.setMeta(.unwatchedDirectories, u64: UInt64(tree.unwatched.count))
            try writer.setMeta(.watcherPID, u64: state == "stopped" ? 0 : UInt64(getpid()))
        }
    }

    /// Says once, precisely, which limit was hit and how to raise it.
    func reportLimit() {
        guard tree.limitReached, !tree.unwatched.isEmpty, !limitReported else { return }
        limitReported = true
        let limit = Inotify.maxUserWatches().map(String.init) ?? "?"
        logger.warning("""
            inotify watch limit reached: \(tree.unwatched.count) directories are not watched \
            (fs.inotify.max_user_watches = \(limit)). Raise it with \
            'sysctl fs.inotify.max_user_watches=524288' (persist it in /etc/sysctl.d/90-bundleidx.conf); \
            until then those directories are rescanned every \(Int(options.rescanInterval)) s.
            """)
    }
}
#endif
