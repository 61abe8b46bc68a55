import BundleIndexCore

import Glibc

/// The return codes of include/bundleidx.h: 0 answered, 1 not found, negative errors.
enum CResult {
    static let ok: Int32 = 0
    static let notFound: Int32 = 1
    static let argument: Int32 = -1
    static let noIndex: Int32 = -2
    static let notAnIndex: Int32 = -3
    static let damaged: Int32 = -4
    static let storage: Int32 = -5
    static let system: Int32 = -6
    static let noMemory: Int32 = -7

    /// The code for an error the library threw (every one is a `BundleIndexError`).
    static func code(for error: Error) -> Int32 {
        switch error as? BundleIndexError {
        case .missing?: return noIndex
        case .notAnIndex?, .unsupportedVersion?: return notAnIndex
        case .corrupt?, .hashCollision?: return damaged
        case .storage?, .busy?, .insecure?, .refusingToOverwrite?: return storage
        case .system?, .syncTimedOut?: return system
        case .badInput?, nil: return argument
        }
    }

    /// `bundleidx_strerror`'s sentence for `code`: a literal, stored NUL-terminated for the
    /// life of the process.
    static func message(_ code: Int32) -> StaticString {
        switch code {
        case ok: return "success"
        case notFound: return "not found (no such bundle, resource or key)"
        case argument: return "invalid argument (a required argument is NULL, a string is not UTF-8, or a profile or language list is unknown)"
        case noIndex: return "no index at that path (build one with bundleidx build)"
        case notAnIndex: return "not a bundleidx index, or an index of another format version"
        case damaged: return "the index is damaged (rebuild it with bundleidx build)"
        case storage: return "the index's storage failed"
        case system: return "a system call failed"
        case noMemory: return "out of memory"
        default: return "unknown bundleidx error code"
        }
    }
}

/// C strings in and out.
enum CText {
    /// An optional string argument: `.some(nil)` for NULL, `.some(text)` for UTF-8, nil when
    /// the bytes are not UTF-8 (repairing them could answer for another name).
    static func optional(_ pointer: UnsafePointer<CChar>?) -> String?? {
        guard let pointer else { return .some(nil) }
        return String(validatingCString: pointer).map { .some($0) } ?? nil
    }

    /// A `malloc`ed NUL-terminated copy of `bytes` (nil when memory ran out); the caller frees it.
    static func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<CChar>? {
        guard let out = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        if let base = bytes.baseAddress { memcpy(out, base, bytes.count) }
        out[bytes.count] = 0
        return out
    }

    static func copy(_ string: String) -> UnsafeMutablePointer<CChar>? {
        var string = string
        return string.withUTF8 { copy($0) }
    }

    /// A `malloc`ed array of `malloc`ed copies of `strings` (nil, with nothing left allocated,
    /// when memory ran out); `bundleidx_free_paths` releases it.
    static func copy(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        let size = MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * strings.count
        guard let array = malloc(size)?.assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self) else { return nil }
        for (i, s) in strings.enumerated() {
            guard let c = copy(s) else {
                for j in 0..<i { free(array[j]) }
                free(array)
                return nil
            }
            array[i] = c
        }
        return array
    }
}
