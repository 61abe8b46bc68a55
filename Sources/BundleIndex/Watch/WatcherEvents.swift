#if canImport(Glibc)
import Glibc

extension IndexWatcher {
    /// Turns one inotify event into pending work (docs/watching.md, "How it works", item 2).
    func record(_ e: Inotify.Event) {
        if e.has(Int32(IN_Q_OVERFLOW)) {
            logger.warning("inotify queue overflowed: events were lost; rescanning every root")
            pending.overflow = true
            overflows += 1
            return
        }
        if e.has(Int32(IN_IGNORED)) {
            // The kernel dropped the watch: the directory was deleted or its file system unmounted.
            if let dir = tree.dropped(e.wd), !FileSystem.isDirectory(dir) {
                folderChanged(dir)
            }
            return
        }
        guard let dir = tree.path(of: e.wd) else { return }
        if !rootWays.isEmpty { noticeRootWays(e, in: dir) }
        if e.has(Int32(IN_DELETE_SELF)) || e.has(Int32(IN_MOVE_SELF)) {
            if isRoot(dir) {
                rootWentAway(dir)
                return
            }
            if !isUnderRoot(dir) { outsideFolderWentAway(dir) }
            folderChanged(dir)
            return
        }
        if e.name.isEmpty {
            // About the watched folder itself (IN_ATTRIB: touched, its mode or owner changed;
            // a permission change can hide what it holds): a change of its entry in its parent.
            // Taken as an entry named "" of the folder, it was looked at again as `folder/`, and
            // every bundle below was written as `folder//X.app`. A root's parent is outside
            // every root, where `markChanged` looks for nothing: a root made readable again was
            // never looked at (`lookAgain(atFolder:)` looks at a root itself).
            lookAgain(atFolder: dir)
            return
        }
        if e.name.hasPrefix(SyncCookie.prefix) {
            let path = PathText.child(e.name, of: dir)
            if e.has(Int32(IN_CREATE)) || e.has(Int32(IN_MOVED_TO)) {
                pending.cookies.append(path)
            } else if e.has(Int32(IN_DELETE)) || e.has(Int32(IN_MOVED_FROM)), cookiesRemoved.remove(path) == nil {
                // Removed by someone else (a sync removing its own, answered but not removed
                // by a watcher that may write to it and not to its folder; a timed-out sync):
                // the folder's time changed, which a bundle may record. The watcher's own
                // removals are read again where it makes them (`claimCookies`, `finishCookies`).
                readAgainBundles(recording: dir, entry: e.name)
                pending.touched(at: monotonicSeconds())
            }
            return
        }
        let path = PathText.child(e.name, of: dir)
        if e.isDirectory {
            if e.has(Int32(IN_MOVED_FROM)) {
                movedFrom[e.cookie] = (dir, e.name, true)
            } else if e.has(Int32(IN_MOVED_TO)) {
                let from = movedFrom.removeValue(forKey: e.cookie)
                if let from, from.isDirectory, !holdsARoot(from.directory + "/" + from.name), !holdsARoot(path) {
                    tree.rename(from.directory + "/" + from.name, to: path)
                    markChanged(from.directory, name: from.name)
                } else {
                    if let from { movedAway(from) }
                    if !isRoot(path) && watchesNewFolders(in: dir) {
                        tree.watchRecursively(path)
                        reportLimit()
                    }
                    rootsAreBack(in: path)
                }
            } else if holdsARoot(path) && e.has(Int32(IN_CREATE)) {
                rootsAreBack(in: path)
            } else if e.has(Int32(IN_CREATE)) {
                if watchesNewFolders(in: dir) {
                    tree.watchRecursively(path)   // watch first; the batch scans it later
                    reportLimit()
                }
            } else if e.has(Int32(IN_DELETE)) {
                tree.forget(path)
            }
        } else if e.has(Int32(IN_MOVED_FROM)) {
            movedFrom[e.cookie] = (dir, e.name, false)
        } else if e.has(Int32(IN_MOVED_TO)) {
            if let from = movedFrom.removeValue(forKey: e.cookie) { markChanged(from.directory, name: from.name) }
        } else if e.has(Int32(IN_CLOSE_WRITE)) || e.has(Int32(IN_MODIFY)) || e.has(Int32(IN_ATTRIB)) {
            // Only the content of parsed files matters (Info.plist, every strings table); a
            // permission change can hide a directory.
            let parsed = (e.name.lowercased().hasPrefix("info") && e.name.hasSuffix(".plist")) || StringsTable.isTable(e.name)
            if !parsed && !e.has(Int32(IN_ATTRIB)) {
                // A file a bundle's link names (`Info.plist -> ../out/app-info.xml`) is parsed
                // under the link's name.
                for bundle in stampInterests.bundles(lookingUp: e.name, in: dir) { pending.bundles.insert(bundle) }
                return
            }
        }
        markChanged(dir, name: e.name)
    }

    /// Reads again, in the next batch, every bundle whose records hold what the entry `name` of
    /// `directory` changed: the bundles holding it, those whose links lead to it, those whose
    /// stamps look it up or record the folder's time. The entry itself is not looked at (for a
    /// sync cookie, which is never indexed, that is all its coming and going changes).
    func readAgainBundles(recording directory: String, entry name: String) {
        let path = PathText.child(name, of: directory)
        for bundle in enclosingBundles(of: path) { pending.bundles.insert(bundle) }
        for bundle in bundlesLinking(to: path) { pending.bundles.insert(bundle) }
        for bundle in stampInterests.bundles(lookingUp: name, in: directory) { pending.bundles.insert(bundle) }
    }

    /// A watched root was deleted or moved away. Its watches follow the folder wherever it went,
    /// so events would keep naming it by its old path (bundles rescanned there were found gone,
    /// and when the root came back nothing looked at it again): they are dropped, the root's
    /// bundles go as the root went (`lookAgain` finds no folder there), and the root is
    /// unwatched, so the degraded mode's retry watches it again when it is back and looks at it
    /// then (`applyIfDue`).
    private func rootWentAway(_ root: String) {
        logger.warning("a watched root went away; it is watched again when it is back", metadata: ["root": "\(root)"])
        tree.forget(root)
        tree.markUnwatched(root)
        lookAgain(atFolder: root)
        pending.rootWay(root)
    }

    /// An entry `name` of `directory` changed: rescan every bundle whose indexed tree holds it,
    /// and look at `directory/name` again for bundles that appeared or went away.
    func markChanged(_ directory: String, name: String) {
        readAgainBundles(recording: directory, entry: name)
        // Outside the roots (a link target) no bundle is looked for: only the linking ones change.
        guard isUnderRoot(directory) else { return }
        pending.child(name, of: directory)
        // A directory can become a bundle (or stop being one) through its own entries:
        // Info.plist, or a Contents/Resources folder that changes its layout; and through an
        // Info.plist in such a folder of its own (`D/Resources/Info-gnustep.plist`).
        let lower = name.lowercased()
        if lower.hasPrefix("info") || Self.isLayoutFolder(lower) {
            pending.child(PathText.lastComponent(directory), of: PathText.parent(of: directory))
        }
        if lower.hasPrefix("info"), Self.isLayoutFolder(PathText.lastComponent(directory).lowercased()), !isRoot(directory) {
            let above = PathText.parent(of: directory)
            pending.child(PathText.lastComponent(above), of: PathText.parent(of: above))
        }
    }

    /// A folder whose Info.plist makes the folder above it a bundle (`BundleLayout`), by its
    /// lower-cased name.
    static func isLayoutFolder(_ lower: String) -> Bool {
        lower == "contents" || lower == "resources" || lower == "support files"
    }

    /// Indexed bundles equal to `path` or containing it.
    func enclosingBundles(of path: String) -> [String] {
        var out: [String] = []
        var p = path
        while true {
            if bundles.contains(p) { out.append(p) }
            guard let i = p.utf8.lastIndex(of: UInt8(ascii: "/")), i != p.utf8.startIndex else { break }
            p = String(decoding: p.utf8[..<i], as: UTF8.self)
        }
        return out
    }

    /// Moves whose second half never came: the entry left the tree.
    func settleUnpairedMoves() {
        for (_, from) in movedFrom { movedAway(from) }
        movedFrom = [:]
    }

    /// The entry `from` moved where its watches cannot follow by path: out of the watched
    /// folders, or a root (or a folder holding one) moved by a rename its watched parent saw.
    /// A root that moved went away (`rootWentAway`; before, its watches were carried to the
    /// new path and its own IN_MOVE_SELF was no longer known for a root's).
    func movedAway(_ from: (directory: String, name: String, isDirectory: Bool)) {
        let path = from.directory + "/" + from.name
        if from.isDirectory {
            let movedRoots = roots(atOrBelow: path)
            for root in movedRoots { rootWentAway(root) }
            if !isUnderRoot(path) {
                outsideFolderWentAway(path)
            } else {
                // The roots' own marks (unwatched, to be watched again) stay.
                tree.forget(path, keeping: { p in movedRoots.contains { PathText.isSameOrInside(p, $0) } })
            }
        }
        markChanged(from.directory, name: from.name)
    }

    /// The roots that are `path` or lie below it.
    func roots(atOrBelow path: String) -> [String] {
        roots.filter { PathText.isSameOrInside($0, path) }
    }

    /// Whether a root is `path` or lies below it.
    func holdsARoot(_ path: String) -> Bool {
        !roots(atOrBelow: path).isEmpty
    }

    /// The roots at or below `path` that went away and are there again (made, or moved back
    /// with a folder holding them, in a folder watched for a stamp's lookups): watched and
    /// looked at now, not at the degraded mode's next retry.
    func rootsAreBack(in path: String) {
        for root in roots(atOrBelow: path) where tree.unwatched.contains(root) && FileSystem.isDirectory(root) {
            tree.watchRecursively(root)
            reportLimit()
            lookAgain(atFolder: root)
            releaseCookiesOfReturned(root)
            pending.rootWay(root)
        }
    }

    /// A folder outside every root moved away or was deleted: its watches, and those below it,
    /// follow the old folder, and no event about its parent may come (unwatched). They are
    /// forgotten, and every bundle whose link's target, or whose stamps' lookups, lie there is
    /// read again, which watches what the paths name now (`mv ext/a ext/a.old; mkdir ext/a`
    /// left the new folder unwatched). A root below it went away with it (`rootWentAway`:
    /// watched again when it is back); forgetting a folder watched for stamps once took the
    /// roots' watches along, unmarked, and they were never watched again.
    func outsideFolderWentAway(_ dir: String) {
        pending.bundles.formUnion(linkedBy.bundles(linkingAtOrBelow: dir))
        for bundle in stampInterests.bundles(lookingBelow: dir) { pending.bundles.insert(bundle) }
        for root in rootWays.bundles(lookingBelow: dir) { pending.rootWay(root) }
        for root in roots(atOrBelow: dir) where !tree.unwatched.contains(root) { rootWentAway(root) }
        tree.forget(dir, keeping: isUnderRoot)
    }
}
#endif
