/// The part of a bundle's scan that needs no listing of its own: the lproj names, the plan for
/// an incremental build's walk, which property-list files to read, and reading them and the
/// strings tables. A build's walk leaves it in `ScannedBundle.unfinished`, and either of the
/// build's threads does it (`ScanPipeline`): the walk, which lists every folder, is the longer
/// of the two (docs/performance.md, "The rest of a scan taken off the walk").
extension BundleScanner {
    /// Finishes a scan (`unfinished`), then reads the strings tables, after the warnings of its
    /// walk; returns the warnings the files gave. `reads`: files read before in this build, by
    /// real path (`FilesRead`). Throws when a read meets a shortage of descriptors or memory
    /// (`FileSystem.isShortage`); `bundle` is then not to be written.
    static func readFiles(of bundle: inout ScannedBundle, reads: FilesRead) throws -> [String] {
        var warnings: [String] = []
        if let unfinished = bundle.unfinished {
            let files = finish(&bundle, unfinished)
            // Each file's stamp is the change time its read saw.
            var stamps: [FileStamp] = []
            let infoPlistDirectory = bundle.layout.infoPlistDirectory
            bundle.infoPlists = try readInfoPlists(bundlePath: bundle.path, in: infoPlistDirectory, files, stamps: &stamps,
                                               warnings: &warnings, reads: reads)
            bundle.stringsFiles = try readStringsFiles(bundlePath: bundle.path, files, stamps: &stamps, reads: reads)
            bundle.fileStamps += stamps
            bundle.unfinished = nil
        }
        // Tables carry their own change times (kept in their table records, not here).
        bundle.tables = try readStringsTables(bundlePath: bundle.path, directories: bundle.directories, warnings: &warnings, reads: reads)
        bundle.warnings += warnings
        return warnings
    }

    /// The lproj names and the incremental walk's plan, into `bundle`; the property-list files
    /// to read.
    private static func finish(_ bundle: inout ScannedBundle, _ unfinished: UnfinishedScan) -> PropertyListFilesToRead {
        UnchangedWalkPlan.apply(to: &bundle.directories, bundle: bundle.path)
        var byPath: PathMap<ScannedDirectory> = [:]
        for directory in bundle.directories where byPath[directory.path] == nil { byPath[directory.path] = directory }
        let layout = bundle.layout
        let resourceEntries = byPath[layout.resourceDirectory]?.entries ?? []
        // In readdir order, as CF lists them (`Bundle.localizations` on Linux; L-readdir-order).
        bundle.lprojs = resourceEntries.sorted { $0.rank < $1.rank }.compactMap(\.lprojName)
        let infoPlists = unfinished.infoPlistFolderEntries.filter(isInfoPlistName)
        return PropertyListFilesToRead(infoPlistDirectoryRealPath: byPath[layout.infoPlistDirectory]?.realPath,
                                       infoPlists: infoPlists.map(\.name),
                                       stringsFiles: stringsFileNames(layout: layout, byPath: byPath))
    }

    /// The Info.plist files named in `directory` (the layout's), parsed; `stamps` gets each one's
    /// path relative to the bundle with the change time its read saw.
    private static func readInfoPlists(bundlePath: String, in directory: String, _ files: PropertyListFilesToRead,
                                       stamps: inout [FileStamp],
                                       warnings: inout [String], reads: FilesRead) throws -> [InfoPlistFile] {
        var out: [InfoPlistFile] = []
        for name in files.infoPlists {
            let relative = PathText.join(directory, name), path = PathText.child(relative, of: bundlePath)
            let (result, changeTime, _) = try reads.propertyList(path, realPath: files.infoPlistDirectoryRealPath.map { Self.realPath(of: name, in: $0) },
                                                                   gnustep: name.lowercased() == "info-gnustep.plist")
            stamps.append(FileStamp(path: relative, changeTime: changeTime, inode: 0))
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
                                  reads: FilesRead) throws -> [StringsTable] {
        var out: [StringsTable] = []
        for d in directories {
            for e in d.entries where StringsTable.isTable(e.name) && !e.isDirectory {
                let relative = PathText.join(d.path, e.name)
                let file = try reads.table(PathText.child(relative, of: bundlePath), realPath: d.realPath.map { realPath(of: e.name, in: $0) })
                out.append(StringsTableReader.table(bundlePath: bundlePath, relativePath: relative, file, warnings: &warnings))
            }
        }
        return out
    }

    /// Files a search for `InfoPlist.strings` can return: `InfoPlist*.strings` (variants
    /// included) in the resource directory, its lprojs, and for version 0 the root and its lprojs.
    private static func stringsFileNames(layout: BundleLayout, byPath: PathMap<ScannedDirectory>) -> [(directory: ScannedDirectory, name: String)] {
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
                                         stamps: inout [FileStamp], reads: FilesRead) throws -> [StringsFile] {
        try files.stringsFiles.map { file in
            let relative = PathText.join(file.directory.path, file.name)
            let (result, changeTime, _) = try reads.propertyList(PathText.child(relative, of: bundlePath),
                                                                   realPath: file.directory.realPath.map { realPath(of: file.name, in: $0) })
            stamps.append(FileStamp(path: relative, changeTime: changeTime, inode: 0))
            return StringsFile(directory: file.directory.path, name: file.name, dictionary: try? result.get())
        }
    }

    /// The path of the entry `name` of the folder whose real path is `folder`: the entry's real
    /// path unless it is a link itself.
    static func realPath(of name: String, in folder: String) -> String {
        PathText.child(name, of: folder)
    }
}

/// The property-list files a scan found to read.
private struct PropertyListFilesToRead {
    /// The real path of the layout's Info.plist directory when the scan knew it.
    let infoPlistDirectoryRealPath: String?
    /// The names in the layout's Info.plist directory that may be an Info.plist, in the
    /// folder's byte order.
    let infoPlists: [String]
    /// `InfoPlist*.strings` files a search for `InfoPlist.strings` can return (the real path of
    /// their folder when known).
    let stringsFiles: [(directory: ScannedDirectory, name: String)]
}
