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

    /// An event in `dir` about its entry `name` (the folder itself when `name` is empty: its
    /// mode, or its own move or deletion): the roots whose way looks it up are followed again
    /// in the next batch.
    func noticeRootWays(in dir: String, name: String) {
        let roots = name.isEmpty ? rootWays.bundles(lookingInto: dir) : rootWays.bundles(lookingUp: name, in: dir)
        for root in roots { pending.rootWays.insert(root) }
    }

    /// At the start of a batch, for each root whose way changed: its lookups are noted again
    /// and, when its path now names another folder than the one watched under it (or none, or
    /// one again), the old folder's watches are dropped, the new folder's tree is watched and
    /// the root is looked at again in this batch: bundles found there are read, the others go.
    func followRootWays(_ changed: PathSet) {
        for root in changed.sorted(by: byteOrder) {
            let real = FileSystem.realPath(root)
            realRoots.removeAll { sameBytes($0.root, root) }
            if let real { realRoots.append((root, real)) }
            noteRootWay(root)
            guard tree.isReplaced(root) else { continue }
            tree.forget(root)
            if FileSystem.isDirectory(root) {
                logger.notice("a root leads to another folder now; watching it there", metadata: ["root": "\(root)"])
                tree.watchRecursively(root)
                reportLimit()
            } else {
                logger.warning("a watched root cannot be reached now (gone, or a folder on its way cannot be searched); it is watched again when it can be",
                               metadata: ["root": "\(root)"])
                tree.markUnwatched(root)
            }
            lookAgain(atFolder: root)
            releaseCookiesOfReturned(root)
        }
    }
}
#endif
