import Glibc

/// Walks the roots given to `bundleidx build` and finds every bundle, nested ones included
/// (`Frameworks/`, `PlugIns/`, bundles inside `Resources/`). Each bundle is scanned by
/// `BundleScanner`; listings it already read are reused while looking for nested bundles.
///
/// The walk itself does not follow symbolic links (a link can lead anywhere, including back up
/// the tree); a root that is itself a link is followed.
struct TreeWalker {
    /// How many listings read through links the walk keeps for later (see `walk`).
    static let maxListingsByRealPath = 16_384

    /// Directory extensions that always make a bundle (compared case-insensitively).
    static let bundleExtensions: Set<String> = [
        "app", "framework", "bundle", "plugin", "appex", "xpc", "kext", "qlgenerator", "mdimporter",
        "prefpane", "saver", "service", "component", "wdgt", "docset", "ideplugin", "xctest",
        "systemextension", "driver", "debug", "palette", "gsbundle", "resources",
    ]

    struct Report {
        var bundles = 0
        var resources = 0
        var warnings: [String] = []
        var unreadableDirectories = 0
        /// Directories that could not be listed, absolute: what the index held below them is
        /// not known to be gone (a build keeps it).
        var unreadablePaths: [String] = []
        var skippedNames = 0
        var directoriesVisited = 0
        /// Folders listed from disk by the walk and its scans; each real folder once, whatever
        /// links lead to it, but for listings dropped by the bound of `walk`'s cache.
        var foldersRead = 0
        /// Every bundle recognised, scanned or not.
        var found: [String] = []
    }

    /// Folders that are bundles whatever they hold (`bundleidx build --bundle DIR`), absolute.
    var declaredBundles: PathSet = []
    /// Called after each bundle, for progress output.
    var progress: ((_ bundles: Int, _ resources: Int) -> Void)?
    /// Asked for every bundle found; false skips scanning it (the watcher's catch-up skips
    /// bundles whose stamps show no change). Nested bundles are still looked for.
    var shouldScan: ((String) -> Bool)?
    /// Asked for every directory the walk visits, before it is listed: non-nil when the index
    /// holds it as a bundle exactly as it is now (the incremental build). It is then a bundle
    /// still — the stamps that matched cover every entry that made it one — and is not scanned,
    /// and the listings returned (directories of the bundle by absolute path, known unchanged,
    /// its root among them when the root is part of its resource tree) stand in for reading
    /// those directories again while nested bundles are looked for.
    ///
    /// It also names folders of the bundle the walk need not enter (`UnchangedBundles.Reuse
    /// .skipped`, none of them a bundle or holding one); with `visited` set, every folder is
    /// entered all the same.
    var unchanged: ((String) throws -> (listings: PathMap<DirectoryListing>, skipped: [String])?)?
    /// Told every directory the walk lists (the watcher makes sure each one is watched).
    var visited: ((String) -> Void)?
    /// False: bundles are handed on with their files unread (`BundleScanner.readsFiles`).
    var readsFiles = true

    /// Walks `root` and hands every bundle to `visit` as soon as it is scanned, so only one
    /// bundle's listings are held in memory at a time.
    func walk(root: String, visit: (ScannedBundle) throws -> Void) throws -> Report {
        var report = Report()
        // Each folder with its real path when known: a plain subfolder's is its parent's plus
        // its name, so only the root costs a `realpath` (the scanner asked one per bundle,
        // ~5 700 `readlink` calls in a build of the real corpus ×1). A link's is not known.
        var stack: [(String, real: String?)] = [(root, FileSystem.realPath(root))]
        var cache: PathMap<DirectoryListing> = [:]
        // Listings scans read, by real path, for folders the walk reaches later under their own
        // path: Debian's `lib/…/X.app/Resources` links to `share/…/X.app`, which is a bundle
        // too, and was read twice (2 404 folder reads for 1 503 folders in the real corpus ×1).
        // Bounded: a link's target outside the walk is never taken back.
        var byRealPath: PathMap<DirectoryListing> = [:]
        var reported: PathSet = []
        // The scans' (`BundleScanner.parentFolders`): bundles found one after the other are
        // mostly in one folder.
        let parentFolders = ParentFolders()
        // Folders of unchanged bundles not to enter (`unchanged`), each removed when passed over.
        var skipped: PathSet = []
        while let (dir, real) = stack.popLast() {
            if reported.contains(dir) { continue }
            report.directoriesVisited += 1
            visited?(dir)
            // Asked before listing: an unchanged bundle needs no listing of its Info.plist folder
            // to be known for one, and gives the listings of its folders, its root's among them
            // when the root is in its resource tree (a one-file build of the real corpus ×19
            // listed ~10 000 folders before, ~1 100 after).
            let reused = try unchanged?(dir)
            if let reused {
                cache.merge(reused.listings) { listed, _ in listed }
                if visited == nil {
                    // A folder named with --bundle is entered whatever its listing.
                    skipped.formUnion(reused.skipped.lazy.filter { !self.declares(inside: $0) })
                }
            }
            let listing: DirectoryListing
            if let cached = cache.removeValue(forKey: dir) {
                listing = cached
                if let real { byRealPath[real] = nil }
            } else if let real, let same = byRealPath.removeValue(forKey: real) {
                listing = same
            } else {
                do {
                    listing = try DirectoryReader.listing(dir, skippedNames: &report.skippedNames)
                    report.foldersRead += 1
                } catch let error as DirectoryReadError {
                    // Anything else (a shortage of descriptors or memory) stops the walk.
                    if error.isGone { continue }
                    report.unreadableDirectories += 1
                    report.unreadablePaths.append(dir)
                    report.warnings.append("unreadable directory skipped: \(error)")
                    continue
                }
            }
            let entries = listing.entries
            if try reused != nil || isBundle(dir, entries: entries, skippedNames: &report.skippedNames, listings: cache) {
                if dir.utf8.count > IndexStore.maximumKeyBytes {
                    report.warnings.append("\(dir): not indexed: its path has \(dir.utf8.count) bytes, more than the \(IndexStore.maximumKeyBytes) an index key holds")
                } else {
                    report.found.append(dir)
                }
            }
            if report.found.last.map({ sameBytes($0, dir) }) == true, reused == nil, shouldScan?(dir) ?? true {
                // The scanner borrows every listing read so far (swapped, not copied): a bundle
                // nested in another one's resources was listed by the outer scan already.
                var scanner = BundleScanner(bundlePath: dir, realPath: real)
                scanner.readsFiles = readsFiles
                scanner.parentFolders = parentFolders
                swap(&scanner.listingCache, &cache)
                swap(&scanner.byRealPath, &byRealPath)
                scanner.listingCache[dir] = listing
                do {
                    let bundle = try scanner.scan()
                    try visit(bundle)
                    report.bundles += 1
                    report.warnings += bundle.warnings
                    report.resources += bundle.resourceCount
                    progress?(report.bundles, report.resources)
                } catch let error as DirectoryReadError {
                    report.unreadablePaths.append(dir)
                    report.warnings.append("bundle skipped: \(error)")
                }
                report.unreadableDirectories += scanner.unreadableDirectories
                report.unreadablePaths += scanner.unreadable
                reported.formUnion(scanner.unreadable)
                report.skippedNames += scanner.skippedNames
                report.foldersRead += scanner.foldersRead
                swap(&scanner.listingCache, &cache)
                swap(&scanner.byRealPath, &byRealPath)
                if byRealPath.count > Self.maxListingsByRealPath { byRealPath.removeAll() }
                cache[dir] = nil
                for (path, listing) in scanner.listed where !sameBytes(path, dir) && !scanner.reachedThroughLinks.contains(path) {
                    cache[path] = listing
                }
            }
            for e in entries.reversed() where e.isDirectory || Self.isLibraryCurrentLink(e, in: dir) {
                let child = PathText.child(e.name, of: dir)
                if !skipped.isEmpty, skipped.remove(child) != nil { continue }
                // A library's `Current` link is followed: its real path is not known.
                let childReal = e.isDirectory ? real.map { PathText.child(e.name, of: $0) } : nil
                stack.append((child, childReal))
            }
        }
        return report
    }

    /// Whether a folder named with --bundle is `path` or inside it.
    private func declares(inside path: String) -> Bool {
        !declaredBundles.isEmpty && declaredBundles.contains { PathText.isSameOrInside($0, path) }
    }

    /// A directory is a bundle when its extension says so, or when CF's layout rules find an
    /// Info.plist in it (docs/search-pattern.md, "Bundle layouts" and "Which Info.plist file is
    /// read"). A directory directly inside one named `Versions` (a framework's `Versions/A`) is
    /// part of its framework, not a bundle of its own.
    /// `listings` are listings already read, by absolute path. Throws only when the Info.plist
    /// folder's listing meets a shortage (`FileSystem.isShortage`): a folder that cannot be
    /// listed makes no bundle, but one the process could not open for want of descriptors may.
    func isBundle(_ path: String, entries: [DirectoryEntry], skippedNames: inout Int,
                  listings: PathMap<DirectoryListing> = [:]) throws -> Bool {
        if declaredBundles.contains(path) || Self.isLibraryResourceFolder(path, entries: entries) { return true }
        // Asked of every folder the walk lists: the name, its extension and the parent's name
        // are found on the UTF-8 bytes (`Character` searches and the concatenation were more
        // than a third of this function in an incremental build).
        let utf8 = path.utf8, slash = UInt8(ascii: "/")
        let lastSlash = utf8.lastIndex(of: slash)
        let name = lastSlash.map { path[utf8.index(after: $0)...] } ?? path[...]
        if Self.hasBundleExtension(name) { return true }
        if let lastSlash, let parentSlash = utf8[..<lastSlash].lastIndex(of: slash),
           utf8[utf8.index(after: parentSlash)..<lastSlash].elementsEqual("Versions".utf8) { return false }
        let layout = BundleLayout.detect(bundlePath: path, directoryLikeNames: entries.filter(\.countsForLayout).map(\.name))
        let infoEntries: [DirectoryEntry]
        if layout == .flat && BundleScanner.isInnards(path) {
            return false
        } else if layout.infoPlistDirectory.isEmpty {
            infoEntries = entries
        } else {
            let infoDirectory = PathText.child(layout.infoPlistDirectory, of: path)
            if let cached = listings[infoDirectory] {
                infoEntries = cached.entries
            } else {
                do {
                    infoEntries = try DirectoryReader.list(infoDirectory, skippedNames: &skippedNames)
                } catch is DirectoryReadError {
                    return false
                }
            }
        }
        return infoEntries.contains(where: BundleScanner.isInfoPlistName)
    }

    /// Whether `name` ends in one of `bundleExtensions`, in any case.
    private static func hasBundleExtension(_ name: Substring) -> Bool {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), name.utf8.index(after: dot) != name.endIndex else { return false }
        return bundleExtensions.contains(name[name.utf8.index(after: dot)...].lowercased())
    }

    /// With `entryMayLeadToBundle`: whether the walk could find anything in a folder by its path
    /// and listing alone, whatever the listings of its subfolders and the targets of its links
    /// — whether `isBundle` could take it for a bundle (but for `declaredBundles`), or the walk
    /// follow one of its links. This one: its last component has a bundle extension. Both err
    /// towards yes, which only costs the walk a visit. The incremental build does not enter an
    /// unchanged bundle's folders for which both say no all the way down
    /// (`UnchangedBundles.Reuse.skipped`).
    static func nameMayBeBundle(_ path: String) -> Bool {
        hasBundleExtension(path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.utf8.index(after: $0)...] } ?? path[...])
    }

    /// See `nameMayBeBundle`: whether `entry` may make its folder a bundle or lead the walk out
    /// of it. A directory or link called `Contents`, `Resources` or `Support Files` in any case
    /// (a layout other than flat: the Info.plist is looked for in it; a library resource folder
    /// holds `Resources`), an Info.plist name that is not a directory, or a link called
    /// `Current` (`isLibraryCurrentLink`).
    static func entryMayLeadToBundle(_ entry: DirectoryEntry) -> Bool {
        let flags = entry.flags
        // Compared in lower case only at the lengths (UTF-8) of the names looked for.
        switch entry.name.utf8.count {
        case 7:
            return flags.contains(.symlinkToDirectory) && entry.name.utf8.elementsEqual("Current".utf8)
        case 8, 9, 13:
            guard flags.contains(.directory) || flags.contains(.symlink) || flags.contains(.symlinkToDirectory) else { return false }
            return layoutFolderNames.contains(entry.name.lowercased())
        case 10, 16, 18, 19:
            return BundleScanner.isInfoPlistName(entry)
        default:
            return false
        }
    }

    /// The folder names `BundleLayout.detect` looks for, in lower case.
    private static let layoutFolderNames: Set<String> = ["contents", "resources", "support files"]

    /// A GNUstep library's resource folder, `…/Libraries/<lib>/Versions/<version>` holding
    /// `Resources` (what `+[NSBundle bundleForLibrary:]` opens; `Bundle(path:)` takes any folder
    /// for a bundle): a bundle although it has no extension and no Info.plist of its own at the
    /// top (docs/scanning.md, "Which directories are bundles").
    static func isLibraryResourceFolder(_ path: String, entries: [DirectoryEntry]) -> Bool {
        // Asked of every folder the walk visits, so the last components are found from the end
        // of the path, and most folders are turned away at the second: splitting each path was
        // 2 % of a build, Foundation's `contains("/Versions/")` 3 % of an incremental one.
        let slash = UInt8(ascii: "/"), utf8 = path.utf8
        /// The component ending at `end` (slashes before `end` skipped), and where it starts.
        func component(endingAt end: String.Index) -> (name: Substring, start: String.Index)? {
            var end = end
            while end > utf8.startIndex, utf8[utf8.index(before: end)] == slash { end = utf8.index(before: end) }
            guard end > utf8.startIndex else { return nil }
            let start = utf8[..<end].lastIndex(of: slash).map { utf8.index(after: $0) } ?? utf8.startIndex
            return (path[start..<end], start)
        }
        guard let version = component(endingAt: path.endIndex), let versions = component(endingAt: version.start),
              versions.name.utf8.elementsEqual("Versions".utf8), let library = component(endingAt: versions.start),
              component(endingAt: library.start)?.name.utf8.elementsEqual("Libraries".utf8) == true else { return false }
        return entries.contains { $0.name == "Resources" && $0.isTraversable }
    }

    /// The `Current` link of a GNUstep library's `Versions` folder: the walk does not follow
    /// links, but this one names a bundle of its own (`Versions/Current` → `1.28`), which
    /// `Bundle(path:)` answers under the link's path.
    static func isLibraryCurrentLink(_ entry: DirectoryEntry, in directory: String) -> Bool {
        entry.flags.contains(.symlinkToDirectory) && namesLibraryCurrent(entry.name, in: directory)
    }

    /// `isLibraryCurrentLink` of the entry at `path`, read from the disk.
    static func isLibraryCurrentLink(atPath path: String) -> Bool {
        guard namesLibraryCurrent(PathText.lastComponent(path), in: PathText.parent(of: path)) else { return false }
        var st = stat()
        return FileSystem.lstatNoting(path, &st) && st.st_mode & S_IFMT == S_IFLNK && FileSystem.isDirectory(path)
    }

    private static func namesLibraryCurrent(_ name: String, in directory: String) -> Bool {
        guard name == "Current", directory.hasSuffix("/Versions") else { return false }
        let parts = PathText.components(directory, omittingEmpty: true)
        return parts.count >= 3 && parts[parts.count - 3] == "Libraries"
    }
}
