#if canImport(Glibc)
import Glibc

/// Links out of a bundle (Debian's `lib/GNUstep/Applications/X.app/Resources ->
/// ../../../../share/GNUstep/X.app`): the bundle indexes the target's content under its own
/// paths, so a change there must rescan it, wherever the target lies (docs/watching.md, "Links
/// out of a bundle").
extension IndexWatcher {
    /// Records that `bundle` indexes the content of `targets` (real paths), replacing what was
    /// recorded for it, and watches each target that has no watch yet (a target outside every
    /// root gets its own watches). Targets are kept as events name them (`eventPath`): in a
    /// root given as a link, by the root's path. True when watches were added for a target
    /// outside the roots: what changed there since the scan made no event (`noteOutsideFolders`).
    /// Not whenever the bundle is the only one linking there (its own links are dropped first,
    /// and every reading again of it counted), nor when the target's folder merely had no watch
    /// (one it cannot get counted at every reading again, and one watched for a lookup had its
    /// folders below it watched only now): a time that never settles (in the future, or in whole
    /// seconds) had the bundle read again ~50 times a second.
    func noteLinks(of bundle: String, to realTargets: [String]) -> Bool {
        #if DEBUG
        beforeWatchingTargets?(bundle)
        #endif
        var targets = realTargets.map(eventPath(ofReal:))
        // A GNUstep library's `Versions/Current` (TreeWalker.isLibraryCurrentLink) is a bundle
        // reached through a link: a change in the folder it names changes it too.
        if PathText.lastComponent(bundle) == "Current", let real = FileSystem.realPath(bundle), !sameBytes(real, bundle) {
            targets.append(eventPath(ofReal: real))
        }
        let unlinked = dropLinks(of: bundle)
        linkTargets[bundle] = targets.isEmpty ? nil : targets
        for target in unlinked where !targets.contains(where: { sameBytes($0, target) }) { unlinkedTargets.insert(target) }
        var watchedNow = false
        for target in targets {
            linkedBy.add(bundle, linkingTo: target)
            // A target in a root is watched with the root (named as events name it, it is below
            // the root's path).
            let watchesBefore = tree.count
            if !isUnderRoot(target), !tree.watchRecursively(target, atMost: linkTargetFolders).complete {
                // A link to `/` or a home folder would have the watcher watch all of it: it
                // watches as many folders as a scan takes through links (`BundleScanner
                // .maxRepeatedDirectories`), and says so.
                logger.warning("""
                    a link out of a bundle leads to more folders than are watched through links; \
                    changes deeper in them are not seen
                    """, metadata: ["bundle": "\(bundle)", "target": "\(target)", "watched": "\(linkTargetFolders)"])
            }
            if tree.count > watchesBefore { watchedNow = true }
        }
        if !targets.isEmpty { reportLimit() }
        return watchedNow
    }

    /// Forgets the targets of `bundle`'s links (the bundle is gone), and the watches of those no
    /// other bundle links to.
    func forgetLinks(of bundle: String) {
        unlinkedTargets.formUnion(dropLinks(of: bundle))
        linkTargets[bundle] = nil
    }

    /// At a batch's end, drops the watches of the targets no bundle links to any more. Not at
    /// once: a bundle renamed is found gone under its old name before it is read under the new
    /// one, and a file written in its target in between made no event (the target's watches
    /// were dropped and added again only after the new name's scan).
    func unwatchUnlinkedTargets() {
        for target in unlinkedTargets where !linkedBy.isLinked(target) { unwatchTarget(target) }
        unlinkedTargets = []
    }

    /// Removes `bundle` from the bundles linking to each of its recorded targets; returns the
    /// targets no bundle links to any more. Through what was recorded for the bundle: going
    /// through every target for each bundle was 38 % of a catch-up's CPU on the real corpus
    /// ×19 (`perf`).
    private func dropLinks(of bundle: String) -> [String] {
        var unlinked: [String] = []
        for target in linkTargets[bundle] ?? [] where linkedBy.remove(bundle, linkingTo: target) {
            unlinked.append(target)
        }
        return unlinked
    }

    /// Drops the watches of a followed link's target no bundle links to any more: a link made to
    /// lead elsewhere again and again added a tree of watches each time, kept until an
    /// overflow's rescan. A target below a root has no watches of its own; below the target,
    /// the folders something else needs keep theirs: a root's, another target's, those a
    /// stamp's or a root's way looks into.
    private func unwatchTarget(_ target: String) {
        guard !isUnderRoot(target) else { return }
        tree.forget(target, keeping: isWatchNeeded)
    }

    /// Reads again, in the next batch, the bundles whose links lead to `place`, into it or to a
    /// folder holding it, and those whose stamps' lookups lie there or below: what `place`
    /// names changed (a root replaced, a mount), and reading them names their folders as
    /// events name them now.
    func readAgainBundles(around place: String) {
        for bundle in stampInterests.bundles(lookingBelow: place) { pending.bundles.insert(bundle) }
        pending.bundles.formUnion(linkedBy.bundles(linkingAtOrBelow: place))
        pending.bundles.formUnion(linkedBy.bundles(linkingTo: place))
    }

    /// Bundles whose links lead to `path` or to a directory holding it. A root's folder can lie
    /// in a target outside the roots (`Resources -> /srv/ext`, and the root `cur -> /srv/ext/sub`):
    /// its events name it by the root, while the target is kept by its real path, so `path` is
    /// looked up by the real path it names as well (before, a change there left the linking
    /// bundle as it was).
    func bundlesLinking(to path: String) -> PathSet {
        var out = linkedBy.bundles(linkingTo: path)
        if let real = realPath(ofEventPath: path) { out.formUnion(linkedBy.bundles(linkingTo: real)) }
        return out
    }

    /// The real path that `path`, named below a root given by another path (a link, or below
    /// one), names; nil when it lies in no such root. The innermost root holding it names it
    /// (its watches were added by its path): through an outer one, `cur/in/x` with `cur` and
    /// `cur/in` both links, the path went through the link `in` again and named no target.
    /// `eventPath(ofReal:)` the other way round.
    func realPath(ofEventPath path: String) -> String? {
        var named: (root: String, real: String)?
        for (root, rootReal) in realRoots where PathText.isSameOrInside(path, root) {
            if named == nil || root.utf8.count > named!.root.utf8.count { named = (root, rootReal) }
        }
        guard let named, !sameBytes(named.root, named.real) else { return nil }
        return named.real + String(decoding: path.utf8.dropFirst(named.root.utf8.count), as: UTF8.self)
    }

    /// True when `path` is a root or lies below one (the tree holds the same roots).
    func isUnderRoot(_ path: String) -> Bool { tree.isUnderRoot(path) }

    /// True when `path` is one of the roots, byte for byte.
    func isRoot(_ path: String) -> Bool {
        roots.contains { sameBytes($0, path) }
    }
}
#endif
