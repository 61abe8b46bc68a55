/// The strings tables one build has read, by real path: the file's name after the real path of
/// its folder, links resolved. Debian links `lib/GNUstep/Applications/X.app/Resources` to
/// `share/GNUstep/X.app`, which is a bundle of its own, so each of its tables is a table of two
/// bundles; it is read and parsed once, like the folder listings the walk lends by real path
/// (docs/scanning.md, "Symbolic links"). Never by inode or content: two hard links or two equal
/// files are two files, read each.
///
/// A real path names one file for the length of a build (a file rewritten meanwhile may be
/// seen as it was, as a folder listed once is). Bounded: two generations of at most
/// `bytesPerGeneration` bytes of table files each; when the newer one is full, the older one
/// is dropped. A table reached again soon after (the next bundles of the walk) is still held.
struct StringsTablesRead {
    private var recent: [String: StringsTableReader.FileRead] = [:]
    private var older: [String: StringsTableReader.FileRead] = [:]
    private var recentBytes = 0
    private let bytesPerGeneration: Int

    /// `bytesPerGeneration` 0: nothing is kept (a scan outside a build).
    init(bytesPerGeneration: Int = 4 << 20) { self.bytesPerGeneration = bytesPerGeneration }

    /// Keeps nothing.
    static var none: StringsTablesRead { StringsTablesRead(bytesPerGeneration: 0) }

    /// The file at `path`, read unless it was read before under `realPath`.
    mutating func file(_ path: String, realPath: String?) -> StringsTableReader.FileRead {
        guard let realPath, bytesPerGeneration > 0 else { return StringsTableReader.file(path) }
        if let read = recent[realPath] ?? older[realPath] { return read }
        let read = StringsTableReader.file(path)
        if recentBytes + read.size > bytesPerGeneration {
            older = recent
            recent = [:]
            recentBytes = 0
        }
        recent[realPath] = read
        recentBytes += read.size
        return read
    }
}
