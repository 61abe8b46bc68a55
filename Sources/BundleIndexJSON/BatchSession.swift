import BundleIndexCore
import SystemPackage

import Glibc

extension BatchQueryEngine {
    /// Serves the batch protocol (docs/batch.md, "Reading and writing"): reads request lines
    /// from the file descriptor `input` until its end and writes one answer line per request to
    /// `output`, in order. Lines holding only spaces, tabs or carriage returns are not requests
    /// and get no answer; a line longer than `BatchRequest.maximumLineLength` bytes gets an
    /// error answer without ever being held in memory whole.
    ///
    /// Every answer is written before the server waits for more input: answers collect while
    /// lines that were read together are answered, and go out in one `write(2)` just before the
    /// next `read(2)` (or at 64 KiB, or at the end). A client that sends one line and waits
    /// gets its answer at once; a file of lines costs a write per 64 KiB, not per line.
    /// Throws `BundleIndexError.system` when reading or writing fails.
    public func serve(input: Int32, output: Int32) throws {
        let lines = LineReader(fd: input, limit: BatchRequest.maximumLineLength)
        var out = JSONOutput()
        out.bytes.reserveCapacity(Self.flushSize + (1 << 12))
        let flush = { (out: inout JSONOutput) throws in
            try writeAll(output, out.bytes)
            out.reset()
        }
        while let line = try lines.next(beforeReading: { try flush(&out) }) {
            switch line {
            case .text(let bytes):
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                answer(line: bytes, into: &out)
            case .tooLong:
                out.raw(#"{"error":"#)
                out.string("the line is longer than \(BatchRequest.maximumLineLength) bytes")
                out.byte(UInt8(ascii: "}"))
            }
            out.byte(0x0A)
            if out.bytes.count >= Self.flushSize { try flush(&out) }
        }
        try flush(&out)
    }

    /// Answers kept before a write even when more lines are already read.
    static let flushSize = 1 << 16
}

/// Writes all of `bytes` to `fd`, again after a partial write or an interruption.
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { buffer in
        var done = 0
        while done < buffer.count {
            let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw BundleIndexError.system(call: "write", errno: Errno(rawValue: errno))
            }
            done += n
        }
    }
}

/// Lines of a file descriptor, each handed out as bytes inside one buffer of a bit more than
/// `limit` bytes: a longer line is read and dropped in pieces, and reported as `.tooLong`.
final class LineReader {
    enum Line {
        /// A line without its newline; the bytes are valid until the next call of `next()`.
        case text(UnsafeBufferPointer<UInt8>)
        /// A line of more than `limit` bytes (not kept).
        case tooLong
    }

    private let fd: Int32
    private let limit: Int
    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    /// Bytes read: `[start, filled)` are not handed out yet; `[start, scanned)` hold no newline.
    private var start = 0, scanned = 0, filled = 0
    private var atEnd = false

    init(fd: Int32, limit: Int, readSize: Int = 1 << 16) {
        self.fd = fd
        self.limit = limit
        // A line of `limit` bytes that starts at 0 still leaves `readSize` bytes to read its newline into.
        capacity = limit + readSize
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// The next line, or nil at the end of the input. The last line needs no newline.
    /// `beforeReading` runs before every `read(2)`, that is whenever no whole line is left in
    /// the buffer and the call may wait for input.
    func next(beforeReading: () throws -> Void = {}) throws -> Line? {
        var dropping = false
        while true {
            if let newline = memchr(buffer + scanned, 0x0A, filled - scanned) {
                let end = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                let line = UnsafeBufferPointer(start: buffer + start, count: end - start)
                start = end + 1
                scanned = start
                return dropping || line.count > limit ? .tooLong : .text(line)
            }
            scanned = filled
            if filled - start > limit { dropping = true }
            if dropping {
                // What is read of an overlong line is dropped as it comes.
                start = filled
                scanned = filled
            }
            if atEnd {
                if dropping { return .tooLong }
                guard start < filled else { return nil }
                let line = UnsafeBufferPointer(start: buffer + start, count: filled - start)
                start = filled
                scanned = filled
                return line.count > limit ? .tooLong : .text(line)
            }
            if start > 0 {
                // Keep the unfinished line at the front; what follows it is free to read into.
                memmove(buffer, buffer + start, filled - start)
                filled -= start
                scanned -= start
                start = 0
            }
            try beforeReading()
            let n = read(fd, buffer + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw BundleIndexError.system(call: "read", errno: Errno(rawValue: errno))
            }
            if n == 0 { atEnd = true } else { filled += n }
        }
    }
}
