#if canImport(Glibc)
import Glibc

/// Where links not followed lead (docs/watching.md, "Links not followed"): a build sees a
/// change there in a bundle's stamps; the watcher watches the folders those stamps look up
/// outside the bundle, one watch each (`StampLookups`), and reads the bundle again when an
/// entry it looks up changes.
extension IndexWatcher {
    /// Records what `bundle`'s stamps look up outside it, replacing what was recorded, and
    /// watches each such folder outside the roots; true when a watch was added. `paths` are
    /// those of its stamps, relative to it: its directory records (a folder reached through a
    /// link moves when a folder on the link's way is renamed) and the stamps of no directory
    /// record (the folders links not followed lead into, its Info.plist…); a strings table's
    /// stamp needs nothing, as a table that is a link has the stamps of a link. Call after
    /// `noteLinks` (`noteOutsideFolders`). No paths: forgets the bundle.
    @discardableResult
    func noteStampLookups(of bundle: String, paths: [String]) -> Bool {
        var lookups: [StampLookups.Lookup] = []
        let leaving = StampLookups.leaving(paths, of: bundle)
        if let real = leaving.isEmpty ? nil : FileSystem.realPath(bundle) {
            var resolver = StampLookups.Resolver(start: real)
            for path in leaving { resolver.add(path) }
            // What lies in a followed link's target is watched with the target's tree, as far
            // as the bound on those watches lets it (`noteLinks`): only the way there is added.
            let targets = linkTargets[bundle] ?? []
            for lookup in resolver.lookups
            where !PathText.isSameOrInside(lookup.folder, real) && !targets.contains(where: { PathText.isSameOrInside(lookup.folder, $0) }) {
                lookups.append(StampLookups.Lookup(folder: eventPath(ofReal: lookup.folder), name: lookup.name))
            }
        }
        return watchLookupFolders(lookups, dropping: stampInterests.set(lookups, for: bundle))
    }

    /// Records and watches what `bundle` looks into outside itself: its followed links'
    /// targets (`noteLinks`) and its stamps' lookups (`noteStampLookups`). A folder watched only
    /// now may have changed between the scan and its watch, unseen: unless every one of
    /// `stamps` (all the bundle's, asked only then; nil when they cannot be read) still matches
    /// the disk and had settled when the scan began, the bundle is read again in the next
    /// batch. (The targets of a new bundle's links had no such check: a file written there in
    /// that window stayed out of the index.)
    func noteOutsideFolders(of bundle: String, targets: [String], paths: [String], stamps: () -> [FileStamp]?,
                            scanBegan: UInt64) {
        let linked = noteLinks(of: bundle, to: targets)
        guard noteStampLookups(of: bundle, paths: paths) || linked else { return }
        reportLimit()
        if !(stamps().map { Self.unchanged($0, in: bundle, scanBegan: scanBegan) } ?? false) {
            pending.bundles.insert(bundle)
            pending.touched(at: monotonicSeconds())
        }
    }

    /// Whether the watch of `folder` is needed: a root holds it, or a followed link's target, or
    /// a stamp's or a root's way looks into it.
    func isWatchNeeded(_ folder: String) -> Bool {
        isUnderRoot(folder) || isBelowLinkTarget(folder) || stampInterests.looks(into: folder) || rootWays.looks(into: folder)
    }

    /// Watches the folders of `lookups` outside the roots, and drops the watches of `emptied`
    /// (folders looked into no more) that nothing else needs (`isWatchNeeded`). True when a
    /// watch was added.
    func watchLookupFolders(_ lookups: [StampLookups.Lookup], dropping emptied: [String]) -> Bool {
        for folder in emptied where !isWatchNeeded(folder) { tree.unwatch(folder) }
        var added = false
        for lookup in lookups where !isUnderRoot(lookup.folder) {
            if tree.watch(lookup.folder) {
                added = true
            } else if !tree.isWatched(lookup.folder) && !tree.unwatched.contains(lookup.folder) && FileSystem.isDirectory(lookup.folder)
                        && faccessat(AT_FDCWD, lookup.folder, R_OK, AT_EACCESS) != 0 {
                // A folder the watcher may search but not read (mode 711 to it) takes no watch
                // (`inotify_add_watch` needs read access): looked at again at each of the
                // degraded mode's retries instead, and said once. (One watched under a root's
                // name, a bind mount's other view of a root, has its events named so.)
                logger.warning("a folder looked into from outside the roots cannot be watched; it is looked at again every --rescan-interval",
                               metadata: ["folder": "\(lookup.folder)"])
                tree.markUnwatched(lookup.folder)
            }
        }
        return added
    }

    /// `noteOutsideFolders` of a bundle just scanned.
    func noteOutsideFolders(of bundle: ScannedBundle, scanBegan: UInt64) {
        noteOutsideFolders(of: bundle.path, targets: bundle.outsideTargets,
                           paths: bundle.directories.map(\.path) + bundle.fileStamps.map(\.path),
                           stamps: { bundle.stamps }, scanBegan: scanBegan)
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
        linkedBy.holds(folder)
    }

    /// Whether folders created in `folder` get watches: below a root or a followed link's
    /// target, not in a folder watched for a stamp's lookups alone.
    func watchesNewFolders(in folder: String) -> Bool {
        isUnderRoot(folder) || isBelowLinkTarget(folder)
    }
}
#endif
