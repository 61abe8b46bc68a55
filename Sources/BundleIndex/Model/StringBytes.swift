extension String {
    /// The UTF-8 bytes of the string, without a copy for native strings (the copy is for
    /// foreign, bridged ones).
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        return try Array(utf8).withUnsafeBufferPointer(body)
    }
}
