#if canImport(Glibc)
import Glibc

/// Which directories have an inotify watch, both ways round, and which could not get one
/// (the degraded mode of docs/watching.md). Watches follow real directories only, like the
/// tree walk that finds bundles.
final class WatchedTree {
    let inotify: Inotify
    private(set) var pathByWatch: [Int32: String] = [:]
    private var watchByPath: PathMap<Int32> = [:]
    /// `watchByPath`'s paths in byte order, made when `forget` or `rename` first needs the
    /// folders below one (nil until then: a catch-up adds tens of thousands of watches and
    /// forgets none), then kept in step. Going through every watch for each folder deleted
    /// took `rm -rf` of 5 000 folders 2.6 s of CPU with 15 000 watches.
    private var sorted: [String]?
    /// Directories without a watch because the watch limit was reached.
    private(set) var unwatched: PathSet = []
    /// Set when `inotify_add_watch` first fails with ENOSPC, for the one log message.
    private(set) var limitReached = false
    /// Paths watched through the link they may be (the roots: a root given as a link to a
    /// folder is watched where it leads, as `build` walks it); every other watch is of the
    /// path itself (`IN_DONT_FOLLOW`), as the tree walk does not follow links.
    var followedLinks: PathSet = []
    /// The watcher's roots: a folder a root leads to is named as the root names it (`watch`).
    var roots: [String] = []
    /// Test seam: pretend the limit is this many watches.
    var artificialLimit: Int?

    init(inotify: Inotify) { self.inotify = inotify }

    var count: Int { watchByPath.count }

    func path(of wd: Int32) -> String? { pathByWatch[wd] }

    /// Watches `path` and every real directory below it — before anything is scanned, so that
    /// whatever appears after a directory is listed produces an event (watch first, then scan).
    /// Returns the directories that could not be listed.
    @discardableResult
    func watchRecursively(_ path: String) -> [String] {
        watchRecursively(path, atMost: .max).unreadable
    }

    /// `watchRecursively`, stopping after `limit` directories; `complete` is false when it
    /// stopped there.
    func watchRecursively(_ path: String, atMost limit: Int) -> (unreadable: [String], complete: Bool) {
        var unreadable: [String] = []
        var stack = [path]
        var skipped = 0
        var visited = 0
        while let dir = stack.popLast() {
            guard visited < limit else { return (unreadable, false) }
            visited += 1
            watch(dir)
            let entries: [DirectoryEntry]
            do {
                entries = try DirectoryReader.list(dir, skippedNames: &skipped)
            } catch {
                // Short of descriptors or memory, the folder is not unreadable: the watcher stops
                // with the error (`IndexWatcher.run`) instead of leaving what is below unwatched.
                ShortageLog.noteFailure(error)
                unreadable.append(dir)
                continue
            }
            for e in entries where e.isDirectory { stack.append(PathText.child(e.name, of: dir)) }
        }
        return (unreadable, true)
    }

    /// Adds a watch unless there is one; true when a watch was added.
    @discardableResult
    func watch(_ dir: String) -> Bool {
        if watchByPath[dir] != nil {
            // Marked unwatched while its watch was carried here by a rename: it has one.
            unwatched.remove(dir)
            return false
        }
        if let limit = artificialLimit, watchByPath.count >= limit {
            limitReached = true
            unwatched.insert(dir)
            return false
        }
        do {
            let wd = try inotify.addWatch(dir, follow: followedLinks.contains(dir))
            if let old = pathByWatch[wd], !sameBytes(old, dir) {
                // The kernel gives one watch per folder. Reached here through a link
                // (`X.app/ext/sub` with `ext -> ../Y.app/dir`), a folder keeps its own path:
                // taken over, its events named the link's path, the bundle that holds it went
                // stale and the two paths took the watch from each other in every batch.
                // A root's watch is its own: a root moved into a watched folder goes away by
                // its own IN_MOVE_SELF (taken over, that event named the new path, and the
                // root was never marked gone); the folder is watched again by its scan.
                // Between a name in a root and one outside every root, the root's wins
                // (`isUnderRoot`).
                switch (isUnderRoot(old), isUnderRoot(dir)) {
                case (true, false): return false
                case (false, true): break
                default: if followedLinks.contains(old) || Self.keepsPath(old, over: dir) { return false }
                }
                unbind(old)
            }
            pathByWatch[wd] = dir
            bind(dir, wd)
            unwatched.remove(dir)
            return true
        } catch BundleIndexError.system(_, .noSpace) {
            limitReached = true
            unwatched.insert(dir)
        } catch {
            // ENOENT/ENOTDIR: gone again already (or renamed before we got here: the scan
            // that follows the rename finds it, see IndexWatcher.watchScanned). Short of kernel
            // memory, the folder is not gone: noted, and the watcher stops (`IndexWatcher.run`).
            ShortageLog.noteFailure(error)
        }
        return false
    }

    /// Whether `path` lies in a root. A folder watched under its real path for a lookup or as a
    /// link's target, to which a root given as a link comes to lead (`ln -sfn` back to a release
    /// an older one's links pointed into), took the root's name; it kept its own before: the
    /// root's folders had no watch of their own, their events were not the root's, and when the
    /// lookup was dropped, so was the kernel's watch of the root's folder.
    func isUnderRoot(_ path: String) -> Bool {
        roots.contains { PathText.isSameOrInside(path, $0) }
    }

    /// Whether `dir` has a watch under that name.
    func isWatched(_ dir: String) -> Bool { watchByPath[dir] != nil }

    /// Whether the folder watched as `watched` keeps that path when it is watched again as
    /// `path`: when `watched` is its real path, or when neither is and `watched` still leads to
    /// it (below a root given as a link). A folder that moved away takes the new path.
    private static func keepsPath(_ watched: String, over path: String) -> Bool {
        guard let real = FileSystem.realPath(path) else { return false }
        if sameBytes(real, watched) { return true }
        if sameBytes(real, path) { return false }
        var a = stat(), b = stat()
        return stat(watched, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Forgets `path` and everything below it (deleted, or moved out of the tree), but the
    /// folders `keeping` names.
    func forget(_ path: String, keeping: (String) -> Bool = { _ in false }) {
        for dir in paths(atOrBelow: path) where !keeping(dir) {
            guard let wd = unbind(dir) else { continue }
            inotify.removeWatch(wd)
            pathByWatch[wd] = nil
        }
        unwatched = PathSet(unwatched.filter { !PathText.isSameOrInside($0, path) || keeping($0) })
    }

    /// Whether `path`, watched, now names another folder than the one watched under it (a root
    /// given as a link made to lead elsewhere, a folder on its way replaced), or none; with
    /// `below`, whether any folder watched at or below it does (a link made to lead elsewhere
    /// and back: a folder made meanwhile was watched through it). Asked of the kernel: adding a
    /// watch for a folder already watched gives that watch's descriptor. A path without a watch
    /// is replaced when it went away (`unwatched`) or can be watched now; one that could not
    /// be watched and still cannot (a root the watcher may not read) is not.
    func isReplaced(_ path: String, below: Bool = false) -> Bool {
        guard watchByPath[path] != nil else {
            if unwatched.contains(path) { return true }
            guard let now = try? inotify.addWatch(path, follow: followedLinks.contains(path)) else { return false }
            if pathByWatch[now] == nil { inotify.removeWatch(now) }
            return true
        }
        for dir in below ? paths(atOrBelow: path) : [path] {
            guard let old = watchByPath[dir] else { continue }
            guard let now = try? inotify.addWatch(dir, follow: followedLinks.contains(dir)) else { return true }
            if now == old { continue }
            // Added just now for the asking: the caller watches the folder anew.
            if pathByWatch[now] == nil { inotify.removeWatch(now) }
            return true
        }
        return false
    }

    /// Removes the watch of `dir` alone (a folder watched for what is looked up in it, which
    /// no bundle looks up any more); the folders below keep theirs.
    func unwatch(_ dir: String) {
        guard let wd = unbind(dir) else {
            unwatched.remove(dir)
            return
        }
        inotify.removeWatch(wd)
        pathByWatch[wd] = nil
    }

    /// Records `dir` as a directory without a watch (a root that went away), for
    /// `retryUnwatched` to watch again.
    func markUnwatched(_ dir: String) {
        unwatched.insert(dir)
    }

    /// A directory moved inside the tree: its watches stay (they follow the inode), their
    /// paths change.
    func rename(_ old: String, to new: String) {
        var movedWatches: [(String, Int32)] = []
        for dir in paths(atOrBelow: old) {
            guard let wd = unbind(dir) else { continue }
            movedWatches.append((Self.moved(dir, from: old, to: new), wd))
        }
        for (moved, wd) in movedWatches {
            bind(moved, wd)
            pathByWatch[wd] = moved
        }
        unwatched = PathSet(unwatched.map { PathText.isSameOrInside($0, old) ? Self.moved($0, from: old, to: new) : $0 })
    }

    /// Records `dir`'s watch.
    private func bind(_ dir: String, _ wd: Int32) {
        if watchByPath.updateValue(wd, forKey: dir) == nil, sorted != nil {
            sorted!.insert(dir, at: Self.lowerBound(of: dir, in: sorted!))
        }
    }

    /// Forgets `dir`'s watch, which it returns (the kernel's watch is left to the caller).
    @discardableResult
    private func unbind(_ dir: String) -> Int32? {
        guard let wd = watchByPath.removeValue(forKey: dir) else { return nil }
        if sorted != nil {
            let i = Self.lowerBound(of: dir, in: sorted!)
            if i < sorted!.count, sameBytes(sorted![i], dir) { sorted!.remove(at: i) }
        }
        return wd
    }

    /// The watched paths that are `path` or lie below it. Every path that begins with
    /// `path`'s bytes lies in one run of the byte order, from where `path` would be.
    private func paths(atOrBelow path: String) -> [String] {
        if sorted == nil { sorted = watchByPath.keys.sorted(by: byteOrder) }
        let all = sorted!
        var out: [String] = []
        var i = Self.lowerBound(of: path, in: all)
        while i < all.count, all[i].utf8.starts(with: path.utf8) {
            if PathText.isSameOrInside(all[i], path) { out.append(all[i]) }
            i += 1
        }
        return out
    }

    /// The first index of `sorted` whose path is not before `path` in byte order.
    private static func lowerBound(of path: String, in sorted: [String]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if byteOrder(sorted[middle], path) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `path`, which is `old` or lies below it, with `old` replaced by `new` (by bytes).
    private static func moved(_ path: String, from old: String, to new: String) -> String {
        new + String(decoding: path.utf8.dropFirst(old.utf8.count), as: UTF8.self)
    }

    /// The kernel dropped a watch (IN_IGNORED: directory deleted, file system unmounted).
    func dropped(_ wd: Int32) -> String? {
        guard let dir = pathByWatch.removeValue(forKey: wd) else { return nil }
        if watchByPath[dir] == wd { unbind(dir) }
        return dir
    }

    /// Removes every watch (before a full rescan after an overflow).
    func reset() {
        for wd in pathByWatch.keys { inotify.removeWatch(wd) }
        pathByWatch = [:]
        watchByPath = [:]
        sorted = nil
        unwatched = []
    }

    /// Tries the unwatched directories again (the limit may have been raised).
    func retryUnwatched() {
        for dir in unwatched { watch(dir) }
    }
}
#endif
