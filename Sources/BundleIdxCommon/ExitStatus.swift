@_spi(Engine) import BundleIndexCore
import BundleIndexJSON

import Glibc

/// How a `bundleidx` process ends, the same for every command (`bundleidx --help` lists them).
/// Thrown by command code; each executable's `main` exits with `code` and prints nothing more
/// (whoever throws has already said why).
package struct ExitStatus: Error, Equatable {
    package let code: Int32

    package init(_ code: Int32) { self.code = code }

    /// Nothing found (no such resource or bundle); `verify`: differences.
    package static let notFound = ExitStatus(1)
    package static let usage = ExitStatus(2)
    /// The index is missing, not an index, of another format version, or damaged.
    package static let index = ExitStatus(3)
    /// Bad input: a root that is not a directory, a malformed query.
    package static let input = ExitStatus(4)
    /// Everything else: a system call failed, a sync timed out.
    package static let other = ExitStatus(5)

    /// Prints `error` the way users read it and returns the status that matches it.
    package static func reporting(_ error: Error) -> ExitStatus {
        printError("\(error)")
        switch error as? BundleIndexError {
        case .missing?, .notAnIndex?, .unsupportedVersion?, .corrupt?, .refusingToOverwrite?, .insecure?, .storage?,
             .hashCollision?:
            return .index
        case .badInput?: return .input
        case .system?, .syncTimedOut?, .busy?, nil: return .other
        }
    }
}

package func printError(_ message: String) {
    writeStderr("bundleidx: error: \(message)\n")
}

package func printWarning(_ message: String) {
    writeStderr("bundleidx: warning: \(message)\n")
}

package var stderrIsTerminal: Bool { isatty(2) != 0 }

/// Writes to file descriptor 2 directly (Swift 6 forbids touching the C `stderr` global);
/// a failed write of a message is dropped, there is nowhere left to report it. What standard
/// output holds is written out first, so that `2>&1` shows the two in the order they were
/// written (`verify` printed its count of differences above the differences).
package func writeStderr(_ text: String) {
    StandardStreams.flushOutput()
    try? writeAll(2, Array(text.utf8))
}

/// Every command that reads an index installs this before opening it: a fault inside the
/// index's map (a damaged data.mdb) becomes the index error, exit 3, not a signal death.
package func installCrashGuard(_ indexPath: String) {
    MappedReadGuard.install(message: "bundleidx: error: the index at \(indexPath) is damaged (reading it failed); "
                                + "rebuild it with bundleidx build\n", exitCode: ExitStatus.index.code,
                            damageMark: indexPath + "/" + IndexStore.damageMark,
                            busMessage: "bundleidx: error: the index at \(indexPath) could not be read (a bus error: its "
                                + "file system may be full or failing, or a file of it was cut short)\n")
}

/// Opens the index at `path` (the crash guard first), or reports why not.
package func openIndexReader(at path: String) throws(ExitStatus) -> IndexReader {
    installCrashGuard(path)
    do {
        return try IndexReader(pathNeverWrittenHere: path)
    } catch {
        throw .reporting(error)
    }
}

/// Opens the bundle named on the command line, or exits 1 with a message.
package func openBundle(_ reader: IndexReader, _ reference: String, _ context: SearchContext) throws(ExitStatus) -> IndexedBundle {
    guard !reference.isEmpty else {
        printError("the bundle is an empty string; give its path or its identifier")
        throw .usage
    }
    let found: IndexedBundle?
    // Not remembered: a command line opens its bundle once, so the reader's table of opened
    // bundles would only be filled (a dictionary made, hashed into) and never read.
    do { found = try reader.bundle(reference, context: context, remembering: false) } catch { throw .reporting(error) }
    guard let found else {
        printError(notIndexedMessage(reference, otherwise: " (see: bundleidx bundles)"))
        throw .notFound
    }
    return found
}
