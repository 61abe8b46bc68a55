#if canImport(Glibc)
import Glibc

/// The way to each root (docs/watching.md, "The way to a root"). The folders above a root, and
/// the links its path passes through, lie outside every root: a build follows a root given as a
/// link wherever the link leads now (`ln -sfn release-2 current`), and finds a root whose folder,
/// or a folder above it, was replaced; a watcher saw neither, and kept watching the old folder.
/// The entries the kernel looks up resolving a root's path from `/` are watched, one folder each
/// and never a tree (as a stamp's lookups are, `StampLookups`); an event about one of them has the
/// root's way followed again when the next batch is applied (`followRootWays`).
extension IndexWatcher {
    /// Records the lookups of `root`'s path as it resolves now, replacing those recorded, and
    /// watches their folders outside the roots. The resolution stops where the path does (a
    /// missing entry, a dangling link): the lookups made so far are those that can make it
    /// resolve again.
    func noteRootWay(_ root: String) {
        var resolver = StampLookups.Resolver(start: "/")
        resolver.add(root)
        // The folder the path ends at is the root's own, watched with its tree.
        let lookups = resolver.lookups.compactMap { lookup in
            lookup.name.map { StampLookups.Lookup(folder: eventPath(ofReal: lookup.folder), name: $0) }
        }
        if watchLookupFolders(lookups, dropping: rootWays.set(lookups, for: root)) { reportLimit() }
    }

    /// An event in `dir` about an entry (the folder itself when the event names none: its mode,
    /// its own move or deletion): the roots whose way looks it up are followed again in the next
    /// batch, and surely lead elsewhere when an entry on the way was made, removed or renamed.
    func noticeRootWays(_ e: Inotify.Event, in dir: String) {
        let roots = e.name.isEmpty ? rootWays.bundles(lookingInto: dir) : rootWays.bundles(lookingUp: e.name, in: dir)
        guard !roots.isEmpty else { return }
        let moved = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        for root in roots { pending.rootWay(root, surely: e.mask & moved != 0) }
    }

    /// At the start of a batch, for the roots whose way may have changed (`moved`: surely did).
    /// A root whose path now names another folder than the one watched under it (the kernel
    /// says so, `WatchedTree.isReplaced`), or none, or one again, is replaced: its old watches
    /// are dropped, the folder it names now is watched and looked at again in this batch, so
    /// its bundles are read from there and those it does not hold go. When an entry on its way
    /// was made, removed or renamed, every folder watched below it is asked too: a way changed
    /// back and forth within one batch leaves the root's own folder as it was, but a folder made
    /// meanwhile got its watch through the way as it led at that moment. A link made anew to
    /// lead where it led (`ln -sfn` run again) replaces nothing (it read every bundle again).
    func followRootWays(_ changed: PathSet, moved: PathSet) {
        var replaced: [(root: String, old: String?, new: String?, away: Bool)] = []
        for root in changed.sorted(by: byteOrder) {
            let old = realPath(ofRoot: root)
            let new = FileSystem.realPath(root)
            realRoots.removeAll { sameBytes($0.root, root) }
            if let new { realRoots.append((root, new)) }
            if tree.isReplaced(root, below: moved.contains(root)) {
                replaced.append((root, old, new, tree.unwatched.contains(root)))
            }
        }
        // All old watches go before any new one is added: one root's old folder may be on
        // another's way, or another root's new one.
        for (root, _, _, _) in replaced { tree.forget(root) }
        for (root, old, new, away) in replaced {
            if FileSystem.isDirectory(root) {
                logger.notice("a root's path leads to another folder now; watching it there", metadata: ["root": "\(root)"])
                tree.watchRecursively(root)
            } else {
                // Said once: a root away already was said to be (`rootWentAway`, a retry).
                if !away {
                    logger.warning("a watched root cannot be reached now (gone, or a folder on its way cannot be searched); it is watched again when it can be",
                                   metadata: ["root": "\(root)"])
                }
                tree.markUnwatched(root)
            }
            lookAgain(atFolder: root)
            releaseCookiesOfReturned(root)
            renameAround(root, old: old, new: new)
        }
        if !replaced.isEmpty { reportLimit() }
        // One root's folder may lie on another root's way.
        for root in replaced.isEmpty ? Array(changed) : roots { noteRootWay(root) }
    }

    /// What the watcher keeps by folder name around a replaced root, whose path named the real
    /// folder `old` and names `new` now: the other roots that share either folder (one held
    /// the watches of both, and its own were dropped with the replaced root's) are watched
    /// again and looked at; the bundles whose links or stamps' lookups lie in either folder or
    /// below the root are read again, which names those folders as events name them now.
    private func renameAround(_ root: String, old: String?, new: String?) {
        let places = [old, new].compactMap { $0 }
        // A root nested in this one by path, or holding it, names the shared folders alike:
        // the replaced root's own look covers them.
        for other in roots where !PathText.isSameOrInside(other, root) && !PathText.isSameOrInside(root, other) {
            guard let real = realPath(ofRoot: other),
                  places.contains(where: { PathText.isSameOrInside(real, $0) || PathText.isSameOrInside($0, real) }) else { continue }
            tree.watchRecursively(other)
            lookAgain(atFolder: other)
        }
        for place in places + [root] { readAgainBundles(around: place) }
    }
}
#endif
