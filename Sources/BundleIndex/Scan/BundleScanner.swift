/// Reads one bundle: layout, Info.plist files, lproj names and every directory a lookup can
/// read (docs/search-pattern.md, "Bundle layouts", "Info.plist", "lproj folders", "Search
/// order").
///
/// Which directories: the resource directory and everything below it; for old-style and flat
/// bundles the whole bundle (version-0 bundles fall back to the root on a miss;
/// docs/search-pattern.md, "Version-0 root fallback").
/// Symbolic links to directories are followed, wherever they lead, unless the target is one of
/// the directories already being walked or holds one (no loops); the linked content is indexed
/// under the link's own path, as CF would address it (`Bundle(path:)` opens the path and the
/// kernel follows the link: Debian's `X.app/Resources -> ../../../../share/GNUstep/X.app`).
/// Directories reached through links count against `maxRepeatedDirectories` when they were
/// indexed already or lie outside the bundle (docs/scanning.md, "Symbolic links").
struct BundleScanner {
    let bundlePath: String
    /// Listings already read by the tree walker, by absolute path.
    var listingCache: PathMap<DirectoryListing> = [:]
    private(set) var warnings: [String] = []
    /// False: the scan reads no file but the listings — it leaves the rest of its work in
    /// `unfinished` (the lproj names, the Info.plist and strings files and the tables), for
    /// `readFiles` to do on either of a build's threads (`ScanPipeline`).
    var readsFiles = true
    /// Absolute paths of directories that could not be listed (the walker skips them).
    private(set) var unreadable: PathSet = []
    var unreadableDirectories: Int { unreadable.count }
    private(set) var skippedNames = 0
    /// Folders this scan listed from disk (not from a listing it was lent).
    private(set) var foldersRead = 0
    /// Listings this scan read, for the walker to reuse when it looks for nested bundles.
    private(set) var listed: PathMap<DirectoryListing> = [:]
    /// Directories of `listed` reached through a symbolic link (`Resources` → `Versions/A/…`).
    /// The walker never visits these paths, so it must not keep their listings for later.
    private(set) var reachedThroughLinks: PathSet = []
    /// Real paths of the directories outside the bundle that its links lead to (the link's
    /// target, not what lies below it), in byte order: the watcher watches them too.
    private(set) var outsideTargets: [String] = []
    /// Stamps of what the scan found but no directory record stamps, in path order: the folders
    /// the links it does not follow lead into (`LinkStamps`: a target may appear, become a
    /// folder, or be chosen anew by a link further along), each folder that could not be listed
    /// (a `chmod` that makes it readable changes its time, and nothing else does), and a walked
    /// tree's top that could not be resolved. docs/scanning.md, "Incremental builds".
    private(set) var walkStamps: [FileStamp] = []
    /// Listings by real path: a framework's `Resources` link and `Versions/A/Resources` are one
    /// directory, read once. The tree walker lends its own (listings earlier scans read through
    /// links) and takes back what this scan adds.
    var byRealPath: PathMap<DirectoryListing> = [:]

    static let maxDirectoriesPerBundle = 500_000
    /// How many directories of one bundle may be reached again through symbolic links (a real
    /// directory indexed under a second path and more), or through links out of the bundle. A
    /// framework's `Resources` link repeats its resource tree once; links that fan out
    /// (`d0/l0…l9 → ../d1`, and so on for 7 levels) would repeat a 76 KB bundle a million times,
    /// and a link to `/` would take in the whole disk. Past this bound such directories are left
    /// out, with one warning (docs/scanning.md, "Symbolic links").
    static let maxRepeatedDirectories = 10_000

    /// The bundle's real path when the caller knows it (the tree walker does for folders it
    /// reached without a link), else nil and asked of `realpath`.
    private let knownRealPath: String?
    /// The folder holding the bundle, kept open by the walk for the bundles in it (folders are
    /// listed relative to it); nil: listed by full path.
    var parentFolders: ParentFolders?
    /// `parentFolders`' folder for this bundle while `scan` runs.
    private var base: (fd: Int32, name: String)?

    init(bundlePath: String, realPath: String? = nil) {
        self.bundlePath = bundlePath
        knownRealPath = realPath
    }

    mutating func scan() throws -> ScannedBundle {
        // Folders are listed relative to the bundle's parent folder, which the walk's bundles
        // next to each other share: the kernel then walks only the components past it.
        base = parentFolders?.parent(of: bundlePath)
        defer { base = nil }
        let rootEntries = try list("").entries
        let layout = BundleLayout.detect(bundlePath: bundlePath,
                                         directoryLikeNames: rootEntries.filter(\.countsForLayout).map(\.name))
        let treeRoot = (layout == .resources || layout == .flat) ? "" : layout.resourceDirectory
        let directories = try walkTree(from: treeRoot)
        // The Info.plist folder's entries: the walk's listing when the folder lies in the indexed
        // tree, else listed now (`Contents/`).
        var infoPlistFolderEntries: [DirectoryEntry] = []
        if !(layout == .flat && Self.isInnards(bundlePath)) {
            do {
                infoPlistFolderEntries = try list(layout.infoPlistDirectory).entries
            } catch let error as DirectoryReadError {
                // The walk warned already when the folder lies in its tree (`Resources`).
                if !error.isGone && !unreadable.contains(error.path) { unreadableFolder(layout.infoPlistDirectory, error) }
            }
        }
        // The links of the root and the Info.plist folder outside the walked tree: their targets
        // decide the layout, the tree and which Info.plist is read.
        for folder in Self.layoutFolders(layout) where !directories.contains(where: { sameBytes($0.path, folder) }) {
            let absolute = PathText.absolute(folder, in: bundlePath)
            if let listing = listingCache[absolute] ?? listed[absolute] { linkStamps(listing, at: folder) }
        }
        walkStamps.sort { byteOrder($0.path, $1.path) }
        var bundle = ScannedBundle(path: bundlePath, layout: layout, infoPlists: [], lprojs: [],
                                   directories: directories, stringsFiles: [], tables: [], warnings: warnings,
                                   fileStamps: layoutStamps(layout: layout, directories: directories) + walkStamps,
                                   unreadable: unreadable.sorted(by: byteOrder), outsideTargets: outsideTargets)
        // The rest of the scan works on these listings alone: it is left to `readFiles`, which a
        // build's two threads share, with the files it names (the walk is the longer thread).
        bundle.unfinished = UnfinishedScan(infoPlistFolderEntries: infoPlistFolderEntries)
        if readsFiles {
            _ = try Self.readFiles(of: &bundle, reads: FilesRead.none)
        }
        return bundle
    }

    /// The bundle root and the Info.plist directory when they lie outside the indexed tree
    /// (`Contents/`, `Support Files/`): their entries decide the layout and which Info.plist
    /// files exist, so a change there must show in the stamps too (docs/scanning.md,
    /// "Incremental builds").
    private func layoutStamps(layout: BundleLayout, directories: [ScannedDirectory]) -> [FileStamp] {
        Self.layoutFolders(layout).compactMap { relative in
            let absolute = PathText.absolute(relative, in: bundlePath)
            guard !directories.contains(where: { sameBytes($0.path, relative) }),
                  let listing = listingCache[absolute] ?? listed[absolute] else { return nil }
            return FileStamp(path: relative, changeTime: listing.changeTime, inode: listing.inode ?? FileSystem.stamp(absolute).inode)
        }
    }

    /// The bundle root and its Info.plist folder, once each, in byte order.
    private static func layoutFolders(_ layout: BundleLayout) -> [String] {
        layout.infoPlistDirectory.isEmpty ? [""] : ["", layout.infoPlistDirectory]
    }

    // MARK: - directories

    /// `real`: the directory's real path when known (the tree walk knows it).
    private mutating func list(_ relative: String, real: String? = nil) throws -> DirectoryListing {
        let absolute = PathText.absolute(relative, in: bundlePath)
        if let cached = listingCache[absolute] ?? listed[absolute] { return cached }
        if let real, let same = byRealPath[real] {
            listed[absolute] = same
            return same
        }
        let listing = if let base {
            try DirectoryReader.listing(PathText.join(base.name, relative), in: base.fd, path: absolute, linkStamps: true,
                                        skippedNames: &skippedNames)
        } else {
            try DirectoryReader.listing(absolute, linkStamps: true, skippedNames: &skippedNames)
        }
        foldersRead += 1
        listed[absolute] = listing
        if let real { byRealPath[real] = listing }
        return listing
    }

    private mutating func walkTree(from start: String) throws -> [ScannedDirectory] {
        // A `realpath` reads every component's link (a `readlink` each: 6 % of a build of real
        // trees), so the bundle's is not asked when the tree walker knows it, nor twice when
        // the walk starts at the bundle.
        guard let bundleReal = knownRealPath ?? FileSystem.realPath(bundlePath) else { return [] }
        guard let startReal = start.isEmpty ? bundleReal : FileSystem.realPath(PathText.child(start, of: bundlePath)) else {
            // No tree to walk (`Contents/Resources` missing, dangling or behind a folder that
            // cannot be searched): its stamp shows when one appears.
            try missingTree(start)
            return []
        }
        var out: [ScannedDirectory] = []
        // (relative path, its real path, real paths of the directories above it: the loop
        // guard, whether it keeps its inode number: `ScannedDirectory.inode`). A plain
        // subdirectory's real path is its parent's plus its name, so only the start costs a
        // `realpath` (one per directory used to dominate scans), and a symbolic link is resolved
        // from its folder's real path (`FileSystem.realPath(of:inRealDirectory:)`).
        let startThroughLink = !sameBytes(startReal, PathText.absolute(start, in: bundleReal))
        var stack: [(String, String, [String], Bool)] = [(start, startReal, [], start.isEmpty || startThroughLink)]
        // Directories behind links wait until the plain tree is done, so every real directory is
        // first indexed under its own path and the repetition bound only ever cuts link copies.
        var behindLinks: [(String, String, [String], Bool)] = []
        var seenReal: PathSet = []
        var repeated = 0
        var outside: PathSet = []
        while let (relative, real, chain, keepsInode) = stack.popLast() ?? behindLinks.popLast() {
            let absolute = PathText.absolute(relative, in: bundlePath)
            let isOutside = !Self.isInside(real, bundleReal)
            if !seenReal.insert(real).inserted || isOutside {
                repeated += 1
                if repeated == Self.maxRepeatedDirectories + 1 {
                    warnings.append("\(bundlePath): symbolic links reach more than \(Self.maxRepeatedDirectories) directories "
                                    + "a second time or outside the bundle; the rest of them is not indexed")
                }
                if repeated > Self.maxRepeatedDirectories { continue }
            }
            let listing: DirectoryListing
            do {
                listing = try list(relative, real: real)
            } catch let error as DirectoryReadError {
                if !error.isGone { unreadableFolder(relative, error) }
                continue
            }
            guard out.count < Self.maxDirectoriesPerBundle else {
                warnings.append("more than \(Self.maxDirectoriesPerBundle) directories; the rest is not indexed")
                break
            }
            let lexical = PathText.absolute(relative, in: bundleReal)
            let throughLink = !sameBytes(real, lexical)
            if throughLink { reachedThroughLinks.insert(absolute) }
            let entries = listing.entries
            let inode = keepsInode ? listing.inode ?? FileSystem.stamp(absolute).inode : 0
            out.append(ScannedDirectory(path: relative, entries: entries, changeTime: listing.changeTime, inode: inode, realPath: real))
            linkStamps(listing, at: relative)
            let nextChain = chain + [real]
            for entry in entries.reversed() where entry.isTraversable {
                let child = PathText.join(relative, entry.name)
                if entry.flags.contains(.symlinkToDirectory) {
                    // A target holding the bundle (`up -> ../..`) loops like one holding the
                    // directory being walked. A link not followed is stamped like a link to a
                    // file: a link further along may come to lead elsewhere.
                    guard let target = FileSystem.realPath(of: entry.name, inRealDirectory: real),
                          !nextChain.contains(where: { PathText.isSameOrInside($0, target) }),
                          !PathText.isInside(bundleReal, target)
                    else {
                        linkStamps(of: [entry.name], at: relative)
                        continue
                    }
                    if !Self.isInside(target, bundleReal) { outside.insert(target) }
                    // A folder reached through a link that leads, or may lead, out of the walked
                    // tree, or through something outside it, keeps its inode number.
                    let leaves = startThroughLink || !Self.isInside(target, startReal)
                        || LinkStamps.mayLeave(entry.name, inRealFolder: real, tree: startReal)
                    behindLinks.append((child, target, nextChain, leaves))
                    continue
                }
                stack.append((child, Self.realPath(of: entry.name, in: real), nextChain, false))
            }
        }
        out.sort { byteOrder($0.path, $1.path) }
        walkStamps.sort { byteOrder($0.path, $1.path) }
        outsideTargets = Self.tops(outside)
        return out
    }

    /// The stamps of the links of the folder at `relative` that lead to anything but a directory
    /// (`LinkStamps`): as its listing read them, or, for a listing the index
    /// lent (an unchanged bundle's), read now.
    private mutating func linkStamps(_ listing: DirectoryListing, at relative: String) {
        if let stamps = listing.linkStamps {
            for (path, time, inode) in stamps {
                walkStamps.append(FileStamp(path: PathText.join(relative, path), changeTime: time, inode: inode))
            }
            return
        }
        linkStamps(of: listing.entries.filter { $0.flags == .symlink }.map(\.name), at: relative)
    }

    /// The stamps of the links `names` of the folder at `relative`, read now.
    private mutating func linkStamps(of names: [String], at relative: String) {
        guard !names.isEmpty else { return }
        for (path, time, inode) in LinkStamps.read(names, inFolder: PathText.absolute(relative, in: bundlePath)) {
            walkStamps.append(FileStamp(path: PathText.join(relative, path), changeTime: time, inode: inode))
        }
    }

    /// Records the folder at `relative` as one the scan could not list (the scan is partial),
    /// with a warning and a stamp: a `chmod` that makes it readable changes its time.
    private mutating func unreadableFolder(_ relative: String, _ error: DirectoryReadError) {
        unreadable.insert(PathText.absolute(relative, in: bundlePath))
        warnings.append("unreadable directory skipped: \(error)")
        stampFolder(relative)
    }

    /// Stamps the folder at `relative` as the disk has it now (0 when it cannot be read).
    private mutating func stampFolder(_ relative: String) {
        walkStamps.append(FileStamp(path: relative, FileSystem.stamp(PathText.absolute(relative, in: bundlePath))))
    }

    /// Stamps the folder at `relative`, the walked tree's top, which the scan could not resolve:
    /// missing, or unreadable (then recorded as such, `unreadableFolder`).
    private mutating func missingTree(_ relative: String) throws {
        let absolute = PathText.absolute(relative, in: bundlePath)
        var skipped = 0
        do {
            _ = try DirectoryReader.listing(absolute, skippedNames: &skipped)
        } catch let error as DirectoryReadError where !error.isGone {
            unreadableFolder(relative, error)
            return
        } catch is DirectoryReadError {}
        stampFolder(relative)
    }

    /// The outside targets of a bundle indexed before, from the directories its record holds
    /// (relative paths): each one that is a symbolic link leading out of the bundle (an `lstat`
    /// each; links above the indexed tree are not seen). What `outsideTargets` holds after a scan.
    static func outsideTargets(bundlePath: String, directories: [String]) -> [String] {
        guard let bundleReal = FileSystem.realPath(bundlePath) else { return [] }
        var out: PathSet = []
        for relative in directories where !relative.isEmpty && FileSystem.isSymbolicLink(PathText.child(relative, of: bundlePath)) {
            if let target = FileSystem.realPath(PathText.child(relative, of: bundlePath)), !isInside(target, bundleReal) {
                out.insert(target)
            }
        }
        return tops(out)
    }

    /// The paths none of the others holds, in byte order: a target below another one is
    /// watched with it.
    private static func tops(_ paths: PathSet) -> [String] {
        let sorted = paths.sorted(by: byteOrder)
        return sorted.filter { t in !sorted.contains { PathText.isInside(t, $0) } }
    }

    /// True when the real path `real` is `bundleReal` or lies below it.
    static func isInside(_ real: String, _ bundleReal: String) -> Bool {
        PathText.isSameOrInside(real, bundleReal)
    }

    // MARK: - Info.plist and InfoPlist.strings

    /// CF reads no Info.plist for a flat bundle whose path ends in `Support Files`, `Contents`
    /// or `Resources` — "the innards of another bundle" (a plain suffix test;
    /// docs/search-pattern.md, "Bundle layouts").
    static func isInnards(_ path: String) -> Bool {
        ["Support Files", "Contents", "Resources"].contains { path.hasSuffix($0) }
    }

    /// Names the `foundation-linux` and `apple` profiles may read (GNUstep's own name included;
    /// docs/search-pattern.md, "Which Info.plist file is read").
    static let infoPlistNames: Set<String> = ["info.plist", "info-macos.plist", "info-iphoneos.plist",
                                              "info-gnustep.plist"]

    /// A file (not a folder) whose name is one of `infoPlistNames`, in any case.
    static func isInfoPlistName(_ entry: DirectoryEntry) -> Bool {
        !entry.isDirectory && infoPlistNames.contains(entry.name.lowercased())
    }
}
