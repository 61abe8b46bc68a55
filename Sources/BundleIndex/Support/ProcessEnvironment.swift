import Glibc

/// The process's environment variables and working directory, without Foundation (whose
/// start-up the library avoids).
package enum ProcessEnvironment {
    static func current() -> [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(decoding: UnsafeRawBufferPointer(start: entry, count: strlen(entry)), as: UTF8.self)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return out
    }

    /// The working directory, for making relative paths absolute ("/" when it cannot be read).
    package static func currentDirectory() -> String {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buf, buf.count) != nil else { return "/" }
        return String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
