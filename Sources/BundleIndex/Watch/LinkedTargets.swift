#if canImport(Glibc)
import Glibc

/// Links out of a bundle (Debian's `lib/GNUstep/Applications/X.app/Resources ->
/// ../../../../share/GNUstep/X.app`): the bundle indexes the target's content under its own
/// paths, so a change there must rescan it, wherever the target lies (docs/watching.md, "Links
/// out of a bundle").
extension IndexWatcher {
    /// Records that `bundle` indexes the content of `targets` (real paths), replacing what was
    /// recorded for it, and watches each target that has no watch yet (a target outside every
    /// root gets its own watches).
    func noteLinks(of bundle: String, to targets: [String]) {
        var targets = targets
        // A GNUstep library's `Versions/Current` (TreeWalker.isLibraryCurrentLink) is a bundle
        // reached through a link: a change in the folder it names changes it too.
        if PathText.lastComponent(bundle) == "Current", let real = FileSystem.realPath(bundle), !sameBytes(real, bundle) {
            targets.append(real)
        }
        // Through what was recorded for the bundle: going through every target for each bundle
        // was 38 % of a catch-up's CPU on the real corpus ×19 (`perf`).
        for target in linkTargets[bundle] ?? [] {
            linkedBy[target]?.remove(bundle)
            if linkedBy[target]?.isEmpty == true { linkedBy[target] = nil }
        }
        linkTargets[bundle] = targets.isEmpty ? nil : targets
        for target in targets {
            linkedBy[target, default: []].insert(bundle)
            // Compared with the roots' real paths: a second watch on an inode already watched
            // under a root's path would take that watch's path over.
            if !roots.contains(where: { r in FileSystem.realPath(r).map { PathText.isSameOrInside(target, $0) } ?? false }),
               !tree.watchRecursively(target, atMost: linkTargetFolders).complete {
                // A link to `/` or a home folder would have the watcher watch all of it: it
                // watches as many folders as a scan takes through links (`BundleScanner
                // .maxRepeatedDirectories`), and says so.
                logger.warning("""
                    a link out of a bundle leads to more folders than are watched through links; \
                    changes deeper in them are not seen
                    """, metadata: ["bundle": "\(bundle)", "target": "\(target)", "watched": "\(linkTargetFolders)"])
            }
        }
        if !targets.isEmpty { reportLimit() }
    }

    /// Bundles whose links lead to `path` or to a directory holding it.
    func bundlesLinking(to path: String) -> PathSet {
        var out: PathSet = []
        for (target, linking) in linkedBy where PathText.isSameOrInside(path, target) {
            out.formUnion(linking)
        }
        return out
    }

    /// True when `path` is a root or lies below one.
    func isUnderRoot(_ path: String) -> Bool {
        roots.contains { PathText.isSameOrInside(path, $0) }
    }

    /// True when `path` is one of the roots, byte for byte.
    func isRoot(_ path: String) -> Bool {
        roots.contains { sameBytes($0, path) }
    }
}
#endif
