import Synchronization

import Glibc

extension FileStamp {
    /// True when every stamp, relative to `bundle`, still matches the disk: the watcher's
    /// catch-up and the incremental build ask it before keeping what the index holds for a bundle.
    static func allMatch(_ stamps: [FileStamp], in bundle: String) -> Bool {
        guard let folder = BundleFolder(bundle) else { return stamps.isEmpty }
        return folder.allMatch(stamps)
    }
}

/// A bundle's folder held open (`O_PATH`), so that the change times of its files are
/// read with `fstatat` relative to it: resolving each path from `/` again cost a fifth of an
/// incremental build of a tree with 40 000 directories. Or the folder that holds the bundle,
/// shared by the bundles next to it (`ParentFolders`): the bundle's paths are then read
/// relative to that, one component longer.
final class BundleFolder {
    private let fd: Int32
    /// Whether `fd` is this bundle's own (closed with it) or its parent's.
    private let owned: Bool
    /// The bundle's name in its parent, when `fd` is the parent's.
    private let name: String
    #if DEBUG
    /// The bundle's path, for the test seam (`FileFaults`).
    private let path: String
    #endif

    init?(_ path: String) {
        fd = open(path, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { return nil }
        owned = true
        name = ""
        #if DEBUG
        self.path = path
        #endif
    }

    /// The bundle called `name` in the folder open as `parent` (kept open by its owner), at
    /// `path`.
    fileprivate init(parent: Int32, name: String, path: String) {
        fd = parent
        owned = false
        self.name = name
        #if DEBUG
        self.path = path
        #endif
    }

    deinit {
        if owned { close(fd) }
        if let linked { close(linked.fd) }
    }

    /// `AT_EMPTY_PATH` (Linux), which Glibc's headers as Swift imports them do not name:
    /// `fstatat` of "" reads the folder the descriptor itself names.
    private static let emptyPath: Int32 = 0x1000

    /// A folder of the bundle that is a symbolic link, held open where it leads (`follow`).
    private var linked: (name: String, fd: Int32)?

    /// The build's record of times read below linked folders (`share`).
    private var times: LinkedFolderTimes?
    /// The folder `linked` leads to, and the times read below it so far.
    private var linkedFolder: FileIdentity?
    private var linkedSeen = LinkedFolderTimes.Seen()
    /// What a bundle checked before read below this bundle's own folder, through its link:
    /// while set, stamps are taken as matching and summed into `taken`, which must come to
    /// the same in the end (`finish`).
    private var vouched: LinkedFolderTimes.Seen?
    private var taken = LinkedFolderTimes.Seen()
    /// The stamp of the bundle's folder itself, read by `share`.
    private var own: FileSystem.Stamp?

    /// Joins the build's record of times read below linked folders: reads the bundle folder's
    /// own time now (its stamp's, kept), and with `trusting`, when a bundle checked before read
    /// this folder's whole tree through its link, takes what it read (`matches`, `finish`).
    func share(_ times: LinkedFolderTimes, trusting: Bool) {
        self.times = times
        var st = stat()
        guard (owned ? fstat(fd, &st) : fstatat(fd, name, &st, 0)) == 0 else {
            ShortageLog.noteFailure("stat", name)
            return
        }
        own = FileSystem.stamp(st)
        if trusting { vouched = times.seen(below: FileIdentity(st)) }
    }

    /// Whether `relative`'s time is `stored` and, unless `inode` is 0, its inode number
    /// `inode`: read from the disk, or, while a bundle checked before vouches for this folder,
    /// taken as true and counted for `finish` to settle. The vouching bundle read times only;
    /// an inode is read from the disk all the same (the bundle root, folders behind links:
    /// a few).
    func matches(_ relative: String, _ stored: UInt64, inode: UInt64) -> Bool {
        guard vouched != nil else {
            let read = stamp(relative)
            return read.changeTime == stored && (inode == 0 || read.inode == inode)
        }
        relative.withUTF8Bytes { taken.add(UnsafeRawBufferPointer($0), stored) }
        return inode == 0 || stamp(relative, recording: false).inode == inode
    }

    /// Called when every stamp matched: false when the stamps taken on trust are not exactly
    /// the times the vouching bundle read (the check must be made again from the disk);
    /// otherwise records what was read below this bundle's linked folder, for the bundle the
    /// link leads to.
    func finish() -> Bool {
        if let vouched { return taken == vouched }
        if let times, let linkedFolder { times.record(linkedSeen, below: linkedFolder) }
        return true
    }

    /// When the bundle's folder `child` (one name, no slash) is a symbolic link, opens the
    /// folder it leads to and from then on reads the times of `child` and of every path below
    /// it relative to that folder. A `stat` through the link resolved the link's path again
    /// each time: a Debian GNUstep application's `Resources` leads four folders up and three
    /// down, half of a 1.25 µs `stat` (docs/performance.md, "Stamps read past a linked
    /// Resources"). The answers are the same: the folder is opened through the link as it is
    /// now, and an error leaves the paths read as before. Returns whether it opened one.
    @discardableResult
    func follow(_ child: String) -> Bool {
        guard linked == nil, vouched == nil, !child.isEmpty else { return false }
        var target: CChar = 0
        func isLink(_ path: UnsafePointer<CChar>) -> Bool { readlinkat(fd, path, &target, 1) >= 0 }
        func open(_ path: UnsafePointer<CChar>) -> Int32 {
            openat(fd, path, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        }
        let opened: Int32
        if owned {
            guard isLink(child) else { return false }
            opened = open(child)
        } else {
            guard Self.withJoined(name, child, isLink) else { return false }
            opened = Self.withJoined(name, child, open)
        }
        guard opened >= 0 else { return false }
        linked = (child, opened)
        var st = stat()
        if times != nil, fstat(opened, &st) == 0 { linkedFolder = FileIdentity(st) }
        return true
    }

    /// Change time (ns) of `relative` ("" is the folder itself), following links like `stat`;
    /// 0 when it cannot be read (a stamp of what could not be read holds 0 too). A time read
    /// below the linked folder is recorded for the bundle the link leads to (`finish`).
    func changeTime(_ relative: String) -> UInt64 {
        stamp(relative).changeTime
    }

    /// Change time and inode number of `relative`, as `changeTime`; `recording` false leaves
    /// the time unrecorded.
    private func stamp(_ relative: String, recording: Bool = true) -> FileSystem.Stamp {
        var st = stat()
        #if DEBUG
        if let code = FileFaults.code(for: .status, at: PathText.absolute(relative, in: path)) {
            errno = code
            return Self.read(-1, st, relative)
        }
        #endif
        let rc: Int32
        if let linked, let below = Self.offset(of: relative, below: linked.name) {
            if let below {
                rc = relative.withCString { fstatat(linked.fd, $0 + below, &st, 0) }
            } else {
                rc = fstatat(linked.fd, "", &st, Self.emptyPath)
            }
            let read = Self.read(rc, st, relative)
            if recording, linkedFolder != nil {
                relative.withUTF8Bytes { bytes in
                    let start = below ?? bytes.count
                    linkedSeen.add(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])), read.changeTime)
                }
            }
            return read
        } else if relative.isEmpty, let own {
            return own
        } else if owned {
            rc = relative.isEmpty ? fstat(fd, &st) : fstatat(fd, relative, &st, 0)
        } else if relative.isEmpty {
            rc = fstatat(fd, name, &st, 0)
        } else {
            rc = Self.withJoined(name, relative) { fstatat(fd, $0, &st, 0) }
        }
        return Self.read(rc, st, PathText.join(name, relative))
    }

    /// What a `stat` that returned `rc` read: the stamp; (0, 0) when there is nothing to read
    /// (what a stamp of something missing holds too); `unread` when the process or the system ran
    /// short (`FileSystem.isShortage`, noted for the thread): the incremental build's checks ahead
    /// of the walk run on a thread whose notes nobody asks, and (0, 0) matched a stored stamp
    /// of 0 — a dangling link's, a tree not there yet — so a bundle whose link target had
    /// appeared was kept as it was (review w28).
    private static func read(_ rc: Int32, _ st: stat, _ path: @autoclosure () -> String) -> FileSystem.Stamp {
        if rc == 0 { return FileSystem.stamp(st) }
        let code = errno
        ShortageLog.noteFailure("stat", path())
        return FileSystem.isShortage(code) ? unread : (0, 0)
    }

    /// No stored stamp has this time: it never matches.
    static let unread: FileSystem.Stamp = (.max, .max)

    /// `body` given `first/second` as a C string (a stamp's path below the parent folder),
    /// assembled on the stack: joining the two as Strings allocated once per stamp.
    private static func withJoined<R>(_ first: String, _ second: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        PathComposer.compose(capacity: first.utf8.count + second.utf8.count + 2) { path in
            path.append(first)
            path.append(UInt8(ascii: "/"))
            path.append(second)
            return path.withCString(body)
        }
    }

    /// Where `relative` goes on past `folder/`, in bytes: `.some(nil)` when it is `folder`
    /// itself, nil when it is neither `folder` nor below it.
    private static func offset(of relative: String, below folder: String) -> Int?? {
        var rest = relative.utf8[...]
        for byte in folder.utf8 {
            guard rest.first == byte else { return nil }
            rest = rest.dropFirst()
        }
        if rest.isEmpty { return .some(nil) }
        guard rest.first == UInt8(ascii: "/") else { return nil }
        return folder.utf8.count + 1
    }

    func allMatch(_ stamps: [FileStamp]) -> Bool {
        stamps.allSatisfy { matches($0.path, $0.changeTime, inode: $0.inode) }
    }
}

/// What one incremental build's checks read below folders that links lead to. Debian links
/// each GNUstep application's `lib/GNUstep/Applications/X.app/Resources` to
/// `share/GNUstep/X.app`, a bundle of its own: the walk checks the application first, and the
/// bundle the link leads to is then unchanged exactly when its stamps are the times read
/// through the link, which it compares as a sum of hashes instead of reading them again
/// (docs/performance.md, "Stamps read past a linked Resources"). One entry per linked folder,
/// shared by the build's checking threads.
final class LinkedFolderTimes: Sendable {
    /// Paths below a folder ("" for the folder itself) with their times: how many, and the sum
    /// of a 64-bit hash of each pair, so that the order they were read in does not matter.
    struct Seen: Equatable, Sendable {
        private(set) var count = 0
        private var sum: UInt64 = 0

        mutating func add(_ path: UnsafeRawBufferPointer, _ time: UInt64) {
            var hasher = Hasher()
            hasher.combine(bytes: path)
            hasher.combine(time)
            sum &+= UInt64(bitPattern: Int64(hasher.finalize()))
            count += 1
        }
    }

    private let seen = Mutex<[FileIdentity: Seen]>([:])

    func record(_ times: Seen, below folder: FileIdentity) { seen.withLock { $0[folder] = times } }

    func seen(below folder: FileIdentity) -> Seen? { seen.withLock { $0[folder] } }
}

/// The folder holding the last bundle asked for, kept open: bundles checked in walk order are
/// mostly neighbours (an `Applications` folder of apps), and opening and closing each bundle's
/// own folder was two system calls of the eight an unchanged bundle of a real tree costs.
/// One per thread.
final class ParentFolders {
    private var path = ""
    private var fd: Int32 = -1

    deinit { if fd >= 0 { close(fd) } }

    /// `bundle`'s folder, through its parent's; nil when the parent cannot be opened. The
    /// bundle itself need not exist (its stamps then fail to match).
    func folder(_ bundle: String) -> BundleFolder? {
        guard let (fd, name) = parent(of: bundle) else {
            return bundle.utf8.contains(UInt8(ascii: "/")) && bundle.utf8.count > 1 ? nil : BundleFolder(bundle)
        }
        return BundleFolder(parent: fd, name: name, path: bundle)
    }

    /// The folder holding `bundle`, open until another one is asked for, and the bundle's name
    /// in it; nil for `/`, a path without a slash, or a parent that cannot be opened.
    func parent(of bundle: String) -> (fd: Int32, name: String)? {
        guard let slash = bundle.utf8.lastIndex(of: UInt8(ascii: "/")), bundle.utf8.count > 1 else { return nil }
        let parent = slash == bundle.startIndex ? "/" : String(bundle[..<slash])
        if !sameBytes(parent, path) || fd < 0 {
            if fd >= 0 { close(fd) }
            path = parent
            fd = open(parent, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
            if fd < 0 { return nil }
        }
        return (fd, String(bundle[bundle.index(after: slash)...]))
    }
}
