#if canImport(Glibc)
import Glibc

/// Where links not followed lead (docs/watching.md, "Links not followed"): a build sees a
/// change there in a bundle's stamps; the watcher watches the folders those stamps look up
/// outside the bundle, one watch each (`StampLookups`), and reads the bundle again when an
/// entry it looks up changes.
extension IndexWatcher {
    /// Records what `bundle`'s stamps (relative to it; those of no directory record) look up
    /// outside it, replacing what was recorded, and watches each such folder outside the
    /// roots. A folder watched only now may have changed between the scan and its watch,
    /// unseen: unless every stamp still matches the disk and had settled when the scan began,
    /// the bundle is read again in the next batch. No stamps: forgets the bundle.
    func noteStampLookups(of bundle: String, _ stamps: [FileStamp], scanBegan: UInt64) {
        var lookups: [StampLookups.Lookup] = []
        let leaving = StampLookups.leaving(stamps, of: bundle)
        if let real = leaving.isEmpty ? nil : FileSystem.realPath(bundle) {
            var seen: PathMap<PathSet> = [:]
            for stamp in leaving {
                for lookup in StampLookups.lookups(of: stamp.path, from: real) where !PathText.isSameOrInside(lookup.folder, real) {
                    let folder = eventPath(ofReal: lookup.folder)
                    // "" stands for any entry: no entry has an empty name.
                    guard seen[folder, default: []].insert(lookup.name ?? "").inserted else { continue }
                    lookups.append(StampLookups.Lookup(folder: folder, name: lookup.name))
                }
            }
        }
        for folder in stampInterests.set(lookups, for: bundle) where !isUnderRoot(folder) && !isBelowLinkTarget(folder) {
            tree.unwatch(folder)
        }
        var added = false
        for lookup in lookups where !isUnderRoot(lookup.folder) {
            if tree.watch(lookup.folder) { added = true }
        }
        guard added else { return }
        reportLimit()
        if !Self.unchanged(stamps, in: bundle, scanBegan: scanBegan) {
            pending.bundles.insert(bundle)
            pending.touched(at: monotonicSeconds())
        }
    }

    /// The path the watcher's events give a real folder: below a root, the root's path as
    /// given (its watches were added by it) with the rest of the real path; elsewhere the real
    /// path itself, which is how link targets outside the roots are watched.
    func eventPath(ofReal real: String) -> String {
        for (root, rootReal) in realRoots where PathText.isSameOrInside(real, rootReal) {
            return root + String(decoding: real.utf8.dropFirst(rootReal.utf8.count), as: UTF8.self)
        }
        return real
    }

    /// Whether `folder` is a followed link's target outside the roots, or lies below one
    /// (watched with all its tree: a folder created there is watched too).
    func isBelowLinkTarget(_ folder: String) -> Bool {
        linkedBy.contains { PathText.isSameOrInside(folder, $0.key) }
    }

    /// Whether folders created in `folder` get watches: below a root or a followed link's
    /// target, not in a folder watched for a stamp's lookups alone.
    func watchesNewFolders(in folder: String) -> Bool {
        isUnderRoot(folder) || isBelowLinkTarget(folder)
    }
}
#endif
