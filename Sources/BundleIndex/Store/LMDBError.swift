import CLMDB

/// An error returned by an LMDB call. `MDB_NOTFOUND` is never an error here: lookups return nil.
enum LMDBError: Error, Equatable, CustomStringConvertible {
    case mapFull
    case mapResized
    case readersFull
    case versionMismatch
    case corrupted
    case invalid
    case panic
    case other(code: Int32, message: String)

    init(code: Int32) {
        switch code {
        case MDB_MAP_FULL: self = .mapFull
        case MDB_MAP_RESIZED: self = .mapResized
        case MDB_READERS_FULL: self = .readersFull
        case MDB_VERSION_MISMATCH: self = .versionMismatch
        case MDB_CORRUPTED: self = .corrupted
        case MDB_INVALID: self = .invalid
        case MDB_PANIC: self = .panic
        default: self = .other(code: code, message: String(cString: mdb_strerror(code)))
        }
    }

    /// LMDB's return code (or the errno value) this error came from.
    var code: Int32 {
        switch self {
        case .mapFull: return MDB_MAP_FULL
        case .mapResized: return MDB_MAP_RESIZED
        case .readersFull: return MDB_READERS_FULL
        case .versionMismatch: return MDB_VERSION_MISMATCH
        case .corrupted: return MDB_CORRUPTED
        case .invalid: return MDB_INVALID
        case .panic: return MDB_PANIC
        case .other(let code, _): return code
        }
    }

    /// The errno value for system errors (ENOENT, EACCES, ...), nil for LMDB's own codes.
    var systemErrno: Int32? {
        if case .other(let code, _) = self, code > 0 { return code }
        return nil
    }

    /// The text of the error without its code (`BundleIndexError.storage` adds the code once).
    var message: String {
        if case .other(_, let message) = self { return message }
        return description
    }

    var description: String {
        switch self {
        case .mapFull: return "the index map is full (MDB_MAP_FULL)"
        case .mapResized: return "the index map was resized by another process (MDB_MAP_RESIZED)"
        case .readersFull: return "too many concurrent readers (MDB_READERS_FULL)"
        case .versionMismatch: return "the index was written by an incompatible LMDB version"
        case .corrupted: return "the index file is corrupted (MDB_CORRUPTED)"
        case .invalid: return "the file is not an LMDB database (MDB_INVALID)"
        case .panic: return "LMDB reported a fatal error (MDB_PANIC)"
        case .other(let code, let message): return "\(message) (code \(code))"
        }
    }
}

@inline(__always)
func check(_ code: Int32) throws {
    if code != 0 { throw LMDBError(code: code) }
}
