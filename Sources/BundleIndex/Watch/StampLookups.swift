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

    /// Resolves paths relative to one real folder (a bundle's), collecting the lookups. Paths
    /// that begin alike are resolved alike: where each prefix of a path led is kept, so the
    /// directory records below a link (`Resources/English.lproj`, …) cost one `lstat` each.
    struct Resolver {
        let start: String
        /// Lookups made, each once.
        private(set) var lookups: [Lookup] = []
        /// Folder and name of each lookup made, joined by a NUL (no path holds one; an empty
        /// name stands for any entry).
        private var seen: PathSet = []
        /// Original path prefix → the real folder it led to, nil when its resolution ended.
        private var reached: PathMap<String?> = [:]

        init(start: String) { self.start = start }

        /// Adds the lookups the kernel makes resolving `relative` from `start`, links followed
        /// as it follows them: a relative one from the folder that holds it, an absolute one
        /// from `/`, at most `LinkStamps.maximumSteps` for one component. The resolution stops
        /// where the path stops resolving — at an entry that is missing (its creation is an
        /// event in its folder), a file with more to come, a link that cannot be read — and
        /// the lookups made so far are those that can make it resolve again. A path that ends
        /// at a folder adds that folder's entries.
        mutating func add(_ relative: String) {
            let components = PathText.components(relative, omittingEmpty: true)
            // The longest prefix resolved before, if any.
            var done = components.count
            var folder: String? = start
            while done > 0 {
                if let known = reached[components[..<done].joined(separator: "/")] {
                    folder = known
                    break
                }
                done -= 1
            }
            var prefix = components[..<done].joined(separator: "/")
            for component in components[done...] {
                guard let from = folder else { return }
                folder = resolve(component, from: from)
                prefix = PathText.join(prefix, component)
                reached[prefix] = .some(folder)
            }
            if let folder { note(folder, nil) }
        }

        /// Resolves one component of a path from the real folder `from`: the real folder it
        /// leads to, nil when the resolution ends there.
        private mutating func resolve(_ component: String, from: String) -> String? {
            var folder = from
            // The components still to resolve (a link's text adds its own), the next one last.
            var rest = [component]
            var links = 0
            while let c = rest.popLast() {
                if sameBytes(c, ".") { continue }
                if sameBytes(c, "..") {
                    folder = PathText.parent(of: folder)
                    continue
                }
                note(folder, c)
                let path = PathText.child(c, of: folder)
                var st = stat()
                guard FileSystem.lstatNoting(path, &st) else { return nil }
                switch st.st_mode & S_IFMT {
                case S_IFDIR:
                    folder = path
                case S_IFLNK:
                    links += 1
                    guard links <= LinkStamps.maximumSteps, let text = LinkStamps.text(of: path, in: AT_FDCWD) else { return nil }
                    if text.utf8.first == UInt8(ascii: "/") { folder = "/" }
                    rest.append(contentsOf: PathText.components(text, omittingEmpty: true).reversed())
                default:
                    return nil
                }
            }
            return folder
        }

        private mutating func note(_ folder: String, _ name: String?) {
            if seen.insert(folder + "\0" + (name ?? "")).inserted { lookups.append(Lookup(folder: folder, name: name)) }
        }
    }

    /// The paths of `bundle` (relative to it) whose resolution may look up an entry outside
    /// it: those that climb (`..`) or pass through a link before they end. Most name the
    /// bundle's own folders and files, which need neither the bundle's `realpath` nor a
    /// `Resolver`: the bundle folder is opened once and each of its folders checked once, with
    /// `fstatat`. None when the bundle cannot be opened: then it is gone, and read again for
    /// that.
    static func leaving(_ paths: [String], of bundle: String) -> [String] {
        guard paths.contains(where: { !$0.isEmpty }) else { return [] }
        let fd = open(bundle, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            ShortageLog.noteFailure("open", bundle)
            return []
        }
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
                guard FileSystem.fstatatNoting(fd, prefix, &st, flags: AT_SYMLINK_NOFOLLOW,
                                               path: PathText.child(prefix, of: bundle)) else { return false }
                switch st.st_mode & S_IFMT {
                case S_IFLNK: return true
                case S_IFDIR: folders.insert(prefix)
                default: return false
                }
            }
            return false
        }
        return paths.filter { !$0.isEmpty && mayLeave($0) }
    }

}

/// The lookups of every bundle's stamps that lie outside the bundle, by folder: an event in
/// one of those folders names the bundles to read again. The roots' ways are kept in one too,
/// keyed by root (`IndexWatcher.rootWays`). Folders and names are compared by
/// their bytes, and folders are named as the watcher's events name them.
struct StampInterests {
    /// A class: changed in place where it is kept (a struct in a `PathMap` was copied, with
    /// all its names, for every lookup added: a bundle with 20 000 links into one folder took
    /// a catch-up 5–8 s).
    private final class Folder {
        /// Entry name → the bundles that look it up.
        var byName: PathMap<PathSet> = [:]
        /// The bundles that look at every entry.
        var anyEntry: PathSet = []
        var isEmpty: Bool { byName.isEmpty && anyEntry.isEmpty }
    }

    private var byFolder: PathMap<Folder> = [:]
    private var ofBundle: PathMap<[StampLookups.Lookup]> = [:]

    var folderCount: Int { byFolder.count }

    var isEmpty: Bool { byFolder.isEmpty }

    /// Whether some key looks up an entry of `folder`.
    func looks(into folder: String) -> Bool { byFolder[folder] != nil }

    /// Replaces what `bundle` looks up with `lookups` (none: forgets the bundle). Returns the
    /// folders no bundle looks into any more.
    mutating func set(_ lookups: [StampLookups.Lookup], for bundle: String) -> [String] {
        var emptied: [String] = []
        for old in ofBundle[bundle] ?? [] {
            guard let folder = byFolder[old.folder] else { continue }
            if let name = old.name {
                if var bundles = folder.byName.removeValue(forKey: name) {
                    bundles.remove(bundle)
                    if !bundles.isEmpty { folder.byName[name] = bundles }
                }
            } else {
                folder.anyEntry.remove(bundle)
            }
            if folder.isEmpty {
                byFolder.removeValue(forKey: old.folder)
                emptied.append(old.folder)
            }
        }
        ofBundle[bundle] = lookups.isEmpty ? nil : lookups
        for lookup in lookups {
            let folder: Folder
            if let known = byFolder[lookup.folder] {
                folder = known
            } else {
                folder = Folder()
                byFolder[lookup.folder] = folder
            }
            if let name = lookup.name {
                // Taken out and put back: changed in place, not copied.
                var bundles = folder.byName.removeValue(forKey: name) ?? []
                bundles.insert(bundle)
                folder.byName[name] = bundles
            } else {
                folder.anyEntry.insert(bundle)
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
