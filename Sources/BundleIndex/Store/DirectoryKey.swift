extension PathComposer {
    /// The key hash of the directory spelled by `range` (`Hashing.directory` of the same text).
    func directoryKey(_ range: Range<Int>) -> DirectoryKey {
        DirectoryKey(hash: Hashing.directory(bytes(range)))
    }
}

/// A directory's key hash, without its path (its record stores the path, and the reader
/// compares it with the path it spelled).
struct DirectoryKey: Sendable {
    let hash: UInt64
}
