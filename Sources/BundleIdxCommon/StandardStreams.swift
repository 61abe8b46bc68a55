// `stdout`, a C global, is touched only here: `@preconcurrency` lets Swift 6 read it, and the
// process has one thread when it does.
@preconcurrency import Glibc

/// The standard streams of a bundleidx executable: made safe before anything is opened, and the
/// output checked before the process ends. A result that could not be written is an error the
/// caller must hear of: `bundleidx bundles > /dev/full` exited 0 with nothing written, and a
/// reader gone from a pipe (`| head -1`) killed the process with SIGPIPE.
package enum StandardStreams {
    /// Called first by each executable's `main`.
    ///
    /// SIGPIPE is ignored: a write to a pipe nobody reads fails with EPIPE, which `finish` and
    /// the batch's `writeAll` report (exit 5), instead of killing the process.
    ///
    /// A standard stream the process was started without (`<&-`, `>&-`) is taken by /dev/null,
    /// opened the wrong way round (standard input for writing, the others for reading): so no
    /// file the process opens later (the index's `data.mdb`) becomes its standard input or
    /// output, and a read or write on it still fails (EBADF), as it would on the closed stream.
    package static func prepare() {
        signal(SIGPIPE, SIG_IGN)
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // The lowest free descriptor: `fd` itself, the ones below it being open by now.
            _ = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY)
        }
    }

    /// Writes out what standard output holds. When that or an earlier write of it failed, says
    /// why on standard error and returns 5 (the system-call status) in place of `status` 0 or 1,
    /// whose output the caller would otherwise take for complete; another status is kept.
    package static func finish(_ status: Int32) -> Int32 {
        flushOutput()
        guard ferror(stdout) != 0 else { return status }
        printError("cannot write the output: \(String(cString: strerror(failure ?? EIO)))")
        return status == 0 || status == ExitStatus.notFound.code ? ExitStatus.other.code : status
    }

    /// Why a flush of standard output failed first (a failed write inside `print`, when its
    /// buffer filled, leaves no reason: EIO is said then).
    nonisolated(unsafe) private static var failure: Int32?

    /// Writes out what standard output holds; a failure stays for `finish` to report.
    package static func flushOutput() {
        if fflush(stdout) != 0, failure == nil { failure = errno }
    }

    /// Ends the process with `status`, after `finish`.
    package static func exit(_ status: Int32) -> Never {
        Glibc.exit(finish(status))
    }
}

/// The command line as the process received it, checked before anything reads it: Swift's
/// `CommandLine.arguments` repairs bytes that are not UTF-8 (U+FFFD), so `--index $'ix\xff'`
/// wrote an index at another path and a root by such a name was "no such directory". Paths on
/// the command line must be UTF-8, as every name bundleidx indexes is; one that is not is a
/// usage error (exit 2) that names it.
package enum RawArguments {
    package static func requireUTF8() {
        // A process always gets its own name at least. None means the Swift runtime could not
        // find the command line (it reads /proc/self/maps for it at start, which fails when the
        // system is out of file descriptors or memory): running on would print the help and
        // exit 0 — `query` "found", `build` done — having done nothing (review w26).
        guard CommandLine.argc > 0 else {
            printError("the command line could not be read (the system may be out of file descriptors or memory)")
            StandardStreams.exit(ExitStatus.other.code)
        }
        for position in 0..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[position], String(validatingCString: raw) == nil else { continue }
            let bytes = UnsafeRawBufferPointer(start: raw, count: strlen(raw))
            let shown = bytes.map { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : "\\x" + hex($0) }
            printError("argument \(position) is not valid UTF-8: \(shown.joined())")
            StandardStreams.exit(ExitStatus.usage.code)
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
