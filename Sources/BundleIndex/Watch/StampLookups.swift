#if canImport(Glibc)
import Glibc

/// What a running watcher watches so that it notices what a build's stamps notice outside a
/// bundle's own folders (docs/watching.md, "Links not followed"). A stamp names a path that
/// the kernel resolves through symbolic links — `Resources/../../../share/X.app`, the folder a
/// link not followed leads into, or such a link itself — and what that path leads to changes
/// only when an entry the resolution looks up is made, removed, renamed or replaced by another
/// link, or, for the folder it ends at, when that folder's entries change. Those lookups are
/// what the watcher watches: one folder each, never the tree below it.
enum StampLookups {
    /// One directory entry a resolution looks up: `name` in the real folder `folder`, or, with
    /// `name` nil, any entry of `folder` (the folder a stamp ends at).
    struct Lookup {
        let folder: String
        let name: String?
    }

    /// The lookups the kernel makes resolving `relative` from the real folder `start` (a path
    /// without links), links followed as it follows them: a relative one from the folder that
    /// holds it, an absolute one from `/`, at most `LinkStamps.maximumSteps` of them. The
    /// resolution stops where the path stops resolving — at an entry that is missing (its
    /// creation is an event in its folder), a file with more to come, a link that cannot be
    /// read — and the lookups made so far are those that can make it resolve again. A path
    /// that ends at a folder adds that folder's entries.
    static func lookups(of relative: String, from start: String) -> [Lookup] {
        var out: [Lookup] = []
        var folder = start
        // The components still to resolve, the next one last.
        var rest = Array(PathText.components(relative, omittingEmpty: true).reversed())
        var links = 0
        while let component = rest.popLast() {
            if sameBytes(component, ".") { continue }
            if sameBytes(component, "..") {
                folder = parent(of: folder)
                continue
            }
            out.append(Lookup(folder: folder, name: component))
            let path = PathText.child(component, of: folder)
            var st = stat()
            guard lstat(path, &st) == 0 else { return out }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                folder = path
            case S_IFLNK:
                links += 1
                guard links <= LinkStamps.maximumSteps, let text = LinkStamps.text(of: path, in: AT_FDCWD) else { return out }
                if text.utf8.first == UInt8(ascii: "/") { folder = "/" }
                rest.append(contentsOf: PathText.components(text, omittingEmpty: true).reversed())
            default:
                return out
            }
        }
        out.append(Lookup(folder: folder, name: nil))
        return out
    }

    /// The stamps of `bundle` (relative to it) whose resolution may look up an entry outside
    /// it: those that climb (`..`) or pass through a link before they end. Most stamps name
    /// the bundle's own files (Info.plist, an InfoPlist.strings per lproj), which need neither
    /// the bundle's `realpath` nor `lookups`: the bundle folder is opened once and each of its
    /// folders checked once, with `fstatat`. None when the bundle cannot be opened: then it is
    /// gone, and read again for that.
    static func leaving(_ stamps: [FileStamp], of bundle: String) -> [FileStamp] {
        guard stamps.contains(where: { !$0.path.isEmpty }) else { return [] }
        let fd = open(bundle, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        // Relative folders of the bundle known to be real folders ("" is the bundle).
        var folders: PathSet = [""]
        func mayLeave(_ relative: String) -> Bool {
            var prefix = ""
            for component in PathText.components(relative, omittingEmpty: true) {
                if sameBytes(component, ".") { continue }
                if sameBytes(component, "..") { return true }
                prefix = PathText.join(prefix, component)
                if folders.contains(prefix) { continue }
                var st = stat()
                // Missing, it can appear only by an event in a folder of the bundle.
                guard fstatat(fd, prefix, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
                switch st.st_mode & S_IFMT {
                case S_IFLNK: return true
                case S_IFDIR: folders.insert(prefix)
                default: return false
                }
            }
            return false
        }
        return stamps.filter { !$0.path.isEmpty && mayLeave($0.path) }
    }

    /// The folder holding the real path `path` ("/" for "/" itself, as `..` does there).
    static func parent(of path: String) -> String {
        let utf8 = path.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")), slash != utf8.startIndex else { return "/" }
        return String(decoding: utf8[..<slash], as: UTF8.self)
    }
}

/// The lookups of every bundle's stamps that lie outside the bundle, by folder: an event in
/// one of those folders names the bundles to read again. Folders and names are compared by
/// their bytes, and folders are named as the watcher's events name them.
struct StampInterests {
    private struct Folder {
        /// Entry name → the bundles that look it up.
        var byName: PathMap<PathSet> = [:]
        /// The bundles that look at every entry.
        var anyEntry: PathSet = []
    }

    private var byFolder: PathMap<Folder> = [:]
    private var ofBundle: PathMap<[StampLookups.Lookup]> = [:]

    var folderCount: Int { byFolder.count }

    /// Replaces what `bundle` looks up with `lookups` (none: forgets the bundle). Returns the
    /// folders no bundle looks into any more.
    mutating func set(_ lookups: [StampLookups.Lookup], for bundle: String) -> [String] {
        var emptied: [String] = []
        for old in ofBundle[bundle] ?? [] {
            guard var folder = byFolder[old.folder] else { continue }
            if let name = old.name {
                folder.byName[name]?.remove(bundle)
                if folder.byName[name]?.isEmpty == true { folder.byName.removeValue(forKey: name) }
            } else {
                folder.anyEntry.remove(bundle)
            }
            if folder.byName.isEmpty && folder.anyEntry.isEmpty {
                byFolder.removeValue(forKey: old.folder)
                emptied.append(old.folder)
            } else {
                byFolder[old.folder] = folder
            }
        }
        ofBundle[bundle] = lookups.isEmpty ? nil : lookups
        for lookup in lookups {
            if let name = lookup.name {
                byFolder[lookup.folder, default: Folder()].byName[name, default: []].insert(bundle)
            } else {
                byFolder[lookup.folder, default: Folder()].anyEntry.insert(bundle)
            }
        }
        return emptied.filter { byFolder[$0] == nil }
    }

    /// The bundles that look up the entry `name` of `folder`, or every entry of it.
    func bundles(lookingUp name: String, in folder: String) -> [String] {
        guard let f = byFolder[folder] else { return [] }
        return Array(f.anyEntry) + Array(f.byName[name] ?? [])
    }

    /// The bundles that look up any entry of `folder` (its mode changed: a resolution through
    /// it may go further, or not as far).
    func bundles(lookingInto folder: String) -> [String] {
        guard let f = byFolder[folder] else { return [] }
        return Self.all(f)
    }

    /// The bundles that look into `folder` or a folder below it (the folder moved away or
    /// deleted: every resolution through it may end elsewhere). Goes through every folder.
    func bundles(lookingBelow folder: String) -> [String] {
        byFolder.filter { PathText.isSameOrInside($0.key, folder) }.flatMap { Self.all($0.value) }
    }

    private static func all(_ f: Folder) -> [String] {
        Array(f.anyEntry) + f.byName.flatMap { Array($0.value) }
    }
}
#endif
