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
    var listingCache: [String: DirectoryListing] = [:]
    private(set) var warnings: [String] = []
    /// False: the scan reads no file but the listings — it leaves `tables` empty and the
    /// property-list files named in `propertyListsToRead`, for `readFiles` to fill on another
    /// thread (`ScanPipeline`).
    var readsFiles = true
    /// Absolute paths of directories that could not be listed (the walker skips them).
    private(set) var unreadable: Set<String> = []
    var unreadableDirectories: Int { unreadable.count }
    private(set) var skippedNames = 0
    /// Folders this scan listed from disk (not from a listing it was lent).
    private(set) var foldersRead = 0
    /// Listings this scan read, for the walker to reuse when it looks for nested bundles.
    private(set) var listed: [String: DirectoryListing] = [:]
    /// Directories of `listed` reached through a symbolic link (`Resources` → `Versions/A/…`).
    /// The walker never visits these paths, so it must not keep their listings for later.
    private(set) var reachedThroughLinks: Set<String> = []
    /// Real paths of the directories outside the bundle that its links lead to (the link's
    /// target, not what lies below it), in byte order: the watcher watches them too.
    private(set) var outsideTargets: [String] = []
    /// Listings by real path: a framework's `Resources` link and `Versions/A/Resources` are one
    /// directory, read once. The tree walker lends its own (listings earlier scans read through
    /// links) and takes back what this scan adds.
    var byRealPath: [String: DirectoryListing] = [:]

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
        var directories = walkTree(from: treeRoot)
        UnchangedWalkPlan.apply(to: &directories, bundle: bundlePath)
        let byPath = Dictionary(directories.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })

        let resourceDir = layout.resourceDirectory
        let resourceEntries = byPath[resourceDir]?.entries ?? []
        // In readdir order, as CF lists them (`Bundle.localizations` on Linux; L-readdir-order).
        let lprojs = resourceEntries.sorted { $0.rank < $1.rank }.compactMap { e -> String? in
            guard e.name.hasSuffix(".lproj"), e.name.utf16.count > 6 else { return nil }
            return String(e.name.dropLast(6))
        }

        let toRead = PropertyListFilesToRead(infoPlistDirectoryRealPath: byPath[layout.infoPlistDirectory]?.realPath,
                                             infoPlists: infoPlistNames(layout: layout, byPath: byPath),
                                             stringsFiles: stringsFileNames(layout: layout, byPath: byPath))
        var bundle = ScannedBundle(path: bundlePath, layout: layout, infoPlists: [], lprojs: lprojs,
                                   directories: directories, stringsFiles: [], tables: [], warnings: warnings,
                                   fileStamps: layoutStamps(layout: layout, byPath: byPath), unreadable: unreadable.sorted(by: byteOrder),
                                   outsideTargets: outsideTargets)
        bundle.propertyListsToRead = toRead
        if readsFiles {
            let reads = FilesRead.none
            _ = Self.readFiles(of: &bundle, reads: reads)
        }
        return bundle
    }

    /// Reads the files a scan named (`propertyListsToRead`, then the strings tables) into the
    /// bundle, after the warnings of its walk; returns the warnings the files gave.
    /// `reads`: files read before in this build, by real path (`FilesRead`).
    static func readFiles(of bundle: inout ScannedBundle, reads: FilesRead) -> [String] {
        var warnings: [String] = []
        if let files = bundle.propertyListsToRead {
            // Each file's stamp is the modification time its read saw.
            var stamps: [FileStamp] = []
            let infoPlistDirectory = bundle.layout.infoPlistDirectory
            bundle.infoPlists = readInfoPlists(bundlePath: bundle.path, in: infoPlistDirectory, files, stamps: &stamps,
                                               warnings: &warnings, reads: reads)
            bundle.stringsFiles = readStringsFiles(bundlePath: bundle.path, files, stamps: &stamps, reads: reads)
            bundle.fileStamps += stamps
            bundle.propertyListsToRead = nil
        }
        // Tables carry their own modification times (kept in their table records, not here).
        bundle.tables = readStringsTables(bundlePath: bundle.path, directories: bundle.directories, warnings: &warnings, reads: reads)
        bundle.warnings += warnings
        return warnings
    }

    /// The bundle root and the Info.plist directory when they lie outside the indexed tree
    /// (`Contents/`, `Support Files/`): their entries decide the layout and which Info.plist
    /// files exist, so a change there must show in the stamps too (docs/scanning.md,
    /// "Incremental builds").
    private func layoutStamps(layout: BundleLayout, byPath: [String: ScannedDirectory]) -> [FileStamp] {
        Set(["", layout.infoPlistDirectory]).sorted(by: byteOrder).compactMap { relative in
            let absolute = relative.isEmpty ? bundlePath : bundlePath + "/" + relative
            guard byPath[relative] == nil, let listing = listingCache[absolute] ?? listed[absolute] else { return nil }
            return FileStamp(path: relative, modificationTime: listing.modificationTime)
        }
    }

    // MARK: - directories

    /// `real`: the directory's real path when known (the tree walk knows it).
    private mutating func list(_ relative: String, real: String? = nil) throws -> DirectoryListing {
        let absolute = relative.isEmpty ? bundlePath : bundlePath + "/" + relative
        if let cached = listingCache[absolute] ?? listed[absolute] { return cached }
        if let real, let same = byRealPath[real] {
            listed[absolute] = same
            return same
        }
        let listing = if let base {
            try DirectoryReader.listing(PathText.join(base.name, relative), in: base.fd, path: absolute, skippedNames: &skippedNames)
        } else {
            try DirectoryReader.listing(absolute, skippedNames: &skippedNames)
        }
        foldersRead += 1
        listed[absolute] = listing
        if let real { byRealPath[real] = listing }
        return listing
    }

    private mutating func walkTree(from start: String) -> [ScannedDirectory] {
        // A `realpath` reads every component's link (a `readlink` each: 6 % of a build of real
        // trees), so the bundle's is not asked when the tree walker knows it, nor twice when
        // the walk starts at the bundle.
        guard let bundleReal = knownRealPath ?? FileSystem.realPath(bundlePath),
              let startReal = start.isEmpty ? bundleReal : FileSystem.realPath(bundlePath + "/" + start)
        else { return [] }
        var out: [ScannedDirectory] = []
        // (relative path, its real path, real paths of the directories above it: the loop
        // guard). A plain subdirectory's real path is its parent's plus its name, so only the
        // start costs a `realpath` (one per directory used to dominate scans), and a symbolic
        // link is resolved from its folder's real path (`FileSystem.realPath(of:inRealDirectory:)`).
        var stack: [(String, String, [String])] = [(start, startReal, [])]
        // Directories behind links wait until the plain tree is done, so every real directory is
        // first indexed under its own path and the repetition bound only ever cuts link copies.
        var behindLinks: [(String, String, [String])] = []
        var seenReal: Set<String> = []
        var repeated = 0
        var outside: Set<String> = []
        while let (relative, real, chain) = stack.popLast() ?? behindLinks.popLast() {
            let absolute = relative.isEmpty ? bundlePath : bundlePath + "/" + relative
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
            } catch {
                if (error as? DirectoryReadError)?.isGone == true { continue }
                unreadable.insert(absolute)
                warnings.append("unreadable directory skipped: \(error)")
                continue
            }
            guard out.count < Self.maxDirectoriesPerBundle else {
                warnings.append("more than \(Self.maxDirectoriesPerBundle) directories; the rest is not indexed")
                break
            }
            let lexical = relative.isEmpty ? bundleReal : (bundleReal == "/" ? "" : bundleReal) + "/" + relative
            if real != lexical { reachedThroughLinks.insert(absolute) }
            let entries = listing.entries
            out.append(ScannedDirectory(path: relative, entries: entries, modificationTime: listing.modificationTime, realPath: real))
            let nextChain = chain + [real]
            for entry in entries.reversed() where entry.isTraversable {
                let child = PathText.join(relative, entry.name)
                if entry.flags.contains(.symlinkToDirectory) {
                    guard let target = FileSystem.realPath(of: entry.name, inRealDirectory: real) else { continue }
                    // A target holding the bundle (`up -> ../..`) loops like one holding the
                    // directory being walked.
                    let loops = nextChain.contains { target == $0 || $0.hasPrefix(target + "/") }
                    if loops || bundleReal.hasPrefix(target + "/") { continue }
                    if !Self.isInside(target, bundleReal) { outside.insert(target) }
                    behindLinks.append((child, target, nextChain))
                    continue
                }
                stack.append((child, Self.realPath(of: entry.name, in: real), nextChain))
            }
        }
        out.sort { byteOrder($0.path, $1.path) }
        outsideTargets = Self.tops(outside)
        return out
    }

    /// The outside targets of a bundle indexed before, from the directories its record holds
    /// (relative paths): each one that is a symbolic link leading out of the bundle (an `lstat`
    /// each; links above the indexed tree are not seen). What `outsideTargets` holds after a scan.
    static func outsideTargets(bundlePath: String, directories: [String]) -> [String] {
        guard let bundleReal = FileSystem.realPath(bundlePath) else { return [] }
        var out: Set<String> = []
        for relative in directories where !relative.isEmpty && FileSystem.isSymbolicLink(bundlePath + "/" + relative) {
            if let target = FileSystem.realPath(bundlePath + "/" + relative), !isInside(target, bundleReal) {
                out.insert(target)
            }
        }
        return tops(out)
    }

    /// The paths none of the others holds, in byte order: a target below another one is
    /// watched with it.
    private static func tops(_ paths: Set<String>) -> [String] {
        let sorted = paths.sorted(by: byteOrder)
        return sorted.filter { t in !sorted.contains { t.hasPrefix($0 + "/") } }
    }

    /// True when the real path `real` is `bundleReal` or lies below it.
    static func isInside(_ real: String, _ bundleReal: String) -> Bool {
        bundleReal == "/" || real == bundleReal || real.hasPrefix(bundleReal + "/")
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

    /// The names in the Info.plist directory that may be an Info.plist (listing that directory
    /// when the walk of the tree did not).
    private mutating func infoPlistNames(layout: BundleLayout, byPath: [String: ScannedDirectory]) -> [String] {
        if layout == .flat && Self.isInnards(bundlePath) { return [] }
        let dir = layout.infoPlistDirectory
        let entries: [DirectoryEntry]
        if let scanned = byPath[dir] {
            entries = scanned.entries
        } else if let listedEntries = try? list(dir).entries {
            entries = listedEntries
        } else {
            return []
        }
        return entries.filter { !$0.isDirectory && Self.infoPlistNames.contains($0.name.lowercased()) }.map(\.name)
    }

    /// The Info.plist files named in `directory` (the layout's), parsed; `stamps` gets each one's
    /// path relative to the bundle with the modification time its read saw.
    private static func readInfoPlists(bundlePath: String, in directory: String, _ files: PropertyListFilesToRead,
                                       stamps: inout [FileStamp],
                                       warnings: inout [String], reads: FilesRead) -> [InfoPlistFile] {
        var out: [InfoPlistFile] = []
        for name in files.infoPlists {
            let relative = PathText.join(directory, name), path = bundlePath + "/" + relative
            let (result, modificationTime, _) = reads.propertyList(path, realPath: files.infoPlistDirectoryRealPath.map { Self.realPath(of: name, in: $0) },
                                                                   gnustep: name.lowercased() == "info-gnustep.plist")
            stamps.append(FileStamp(path: relative, modificationTime: modificationTime))
            switch result {
            case .success(let d): out.append(InfoPlistFile(name: name, dictionary: d))
            case .failure(let why):
                warnings.append("\(path) \(why); its information is left empty")
                out.append(InfoPlistFile(name: name, dictionary: nil))
            }
        }
        if !out.contains(where: { $0.name == "Info.plist" }),
           let odd = out.first(where: { $0.name.lowercased() == "info.plist" }) {
            warnings.append("\(bundlePath): Info.plist is spelled \(odd.name); Foundation on Linux reads none")
        }
        return out
    }

    /// Every `.strings` and `.stringsdict` file of a bundle's indexed directories, read: whichever
    /// one a table lookup finds, its entries are in the index (docs/foundation-dropin.md,
    /// "Localized strings"). Links are read through (a link to a folder reads as an empty table,
    /// as for CF); a folder named like a table is no table, a lookup finding it gets none.
    /// `reads`: tables read before in this build, by real path (`FilesRead`).
    static func readStringsTables(bundlePath: String, directories: [ScannedDirectory], warnings: inout [String],
                                  reads: FilesRead) -> [StringsTable] {
        var out: [StringsTable] = []
        for d in directories {
            for e in d.entries where StringsTable.isTable(e.name) && !e.isDirectory {
                let relative = PathText.join(d.path, e.name)
                let file = reads.table(bundlePath + "/" + relative, realPath: d.realPath.map { realPath(of: e.name, in: $0) })
                out.append(StringsTableReader.table(bundlePath: bundlePath, relativePath: relative, file, warnings: &warnings))
            }
        }
        return out
    }

    /// Files a search for `InfoPlist.strings` can return: `InfoPlist*.strings` (variants
    /// included) in the resource directory, its lprojs, and for version 0 the root and its lprojs.
    private func stringsFileNames(layout: BundleLayout, byPath: [String: ScannedDirectory]) -> [(directory: ScannedDirectory, name: String)] {
        var dirs = [layout.resourceDirectory]
        if layout == .resources { dirs.append("") }
        var out: [(directory: ScannedDirectory, name: String)] = []
        for base in Set(dirs) {
            guard let top = byPath[base] else { continue }
            var candidates = [top]
            for e in top.entries where e.name.hasSuffix(".lproj") && e.isTraversable {
                if let d = byPath[PathText.join(base, e.name)] { candidates.append(d) }
            }
            for d in candidates {
                for e in d.entries where e.name.hasPrefix("InfoPlist") && e.name.hasSuffix(".strings") && !e.isDirectory {
                    out.append((d, e.name))
                }
            }
        }
        return out
    }

    /// The `InfoPlist*.strings` files named, parsed (`stamps` as for `readInfoPlists`).
    private static func readStringsFiles(bundlePath: String, _ files: PropertyListFilesToRead,
                                         stamps: inout [FileStamp], reads: FilesRead) -> [StringsFile] {
        files.stringsFiles.map { file in
            let relative = PathText.join(file.directory.path, file.name)
            let (result, modificationTime, _) = reads.propertyList(bundlePath + "/" + relative,
                                                                   realPath: file.directory.realPath.map { realPath(of: file.name, in: $0) })
            stamps.append(FileStamp(path: relative, modificationTime: modificationTime))
            return StringsFile(directory: file.directory.path, name: file.name, dictionary: try? result.get())
        }
    }

    /// The path of the entry `name` of the folder whose real path is `folder`: the entry's real
    /// path unless it is a link itself.
    static func realPath(of name: String, in folder: String) -> String {
        (folder == "/" ? "" : folder) + "/" + name
    }
}
