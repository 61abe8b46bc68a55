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

        With --index, ROOT must lie in one of that index's roots (else it fails at once, status \
        4), and the sync also watches for the index's watcher: when the watcher that kept the \
        index stops while the sync waits, the sync ends at once (status 5); when no watcher \
        kept it by the timeout, the sync says so (status 5). A watcher still starting is \
        waited for.

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
        let outcome: IndexWatcher.SyncOutcome
        do { outcome = try IndexWatcher.sync(root: root, timeout: timeout, whileWatched: watched) } catch {
            throw ExitStatus.reporting(error)
        }
        switch outcome {
        case .answered:
            return
        case .watcherStopped:
            printError("the bundleidx watch that kept the index at \(reader.path) stopped before it applied the changes "
                       + "(its own error says why); start it again with bundleidx watch ROOT --index \(reader.path)")
        case .noWatcher:
            printError("no bundleidx watch kept the index at \(reader.path) while the sync waited (\(timeout) s): nothing "
                       + "applied the changes; start one with bundleidx watch ROOT --index \(reader.path)")
        }
        throw ExitStatus.other
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
