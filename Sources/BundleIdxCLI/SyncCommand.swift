import ArgumentParser
import BundleIdxCommon
import BundleIndex

import Glibc

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Wait until the watcher has applied earlier changes.",
        discussion: """
        Drops a cookie file into ROOT (a directory a running `bundleidx watch` watches) and \
        waits until the watcher has committed the batch that contains it. Afterwards a query \
        sees every change made before `sync` started. A sync that times out exits with status 5.

        With --index, ROOT must lie in one of that index's roots and a watcher must keep that \
        index: a sync aimed at the wrong index, or at one no watcher keeps (none started, or \
        the watcher stopped while the sync waited), fails at once (status 4 and 5) instead of \
        waiting for its timeout.

        Example:
          cp -r Build/New.bundle Examples/ && bundleidx sync Examples
          bundleidx query com.example.new icon --type png
        """
    )

    @Option(name: .long, help: ArgumentHelp("The index whose watcher should apply the changes (checked before waiting).",
                                            valueName: "path"))
    var index: String?

    @Argument(help: "A watched root.")
    var root: String

    // `.unconditional`: `--timeout -1` reaches `validate` and its message, where ArgumentParser
    // took `-1` for an option and said the value was missing.
    @Option(name: .long, parsing: .unconditional, help: "Give up after this many seconds (a positive number).")
    var timeout = 10.0

    func validate() throws {
        guard timeout.isFinite && timeout > 0 else {
            throw ValidationError("--timeout must be a positive number of seconds, not \(timeout)")
        }
    }

    func run() throws {
        guard let index else {
            do { try IndexWatcher.sync(root: root, timeout: timeout) } catch { throw ExitStatus.reporting(error) }
            return
        }
        let reader = try IndexOptions.openReader(at: index)
        try Self.checkRoot(root, isIn: reader)
        // A lock this process may not open (another user's watcher) is not "no watcher".
        let watched = { IndexStore.watcherKeeps(path: reader.path) != false }
        let answered: Bool
        if watched() {
            do { answered = try IndexWatcher.sync(root: root, timeout: timeout, whileWatched: watched) } catch {
                throw ExitStatus.reporting(error)
            }
        } else {
            answered = false
        }
        guard answered else {
            printError("no bundleidx watch keeps the index at \(reader.path) (none runs, or it stopped: its error says why); "
                       + "nothing applies the changes: start one with bundleidx watch ROOT --index \(reader.path)")
            throw ExitStatus.other
        }
    }

    /// Exits 4 unless `root` is at or below one of the roots `reader`'s index was built from.
    static func checkRoot(_ root: String, isIn reader: IndexReader) throws {
        let roots: [String]
        do { roots = try reader.statistics().roots } catch { throw ExitStatus.reporting(error) }
        // Roots are stored absolute as given; compare resolved paths so links and ".." agree.
        let resolved = resolvedPath(root) ?? root
        guard roots.contains(where: { stored in
            let base = resolvedPath(stored) ?? stored
            return PathText.isSameOrInside(resolved, base)
        }) else {
            printError("\(root) is not in a root of the index at \(reader.path) (its roots: \(roots.joined(separator: ", ")))")
            throw ExitStatus.input
        }
    }
}

/// `realpath(3)` of `path`, or nil when it does not resolve.
private func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}
