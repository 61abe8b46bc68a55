import ArgumentParser
import BundleIndex

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Wait until the watcher has applied every change made before this call.",
        discussion: """
        Drops a cookie file into ROOT (a directory a running `bundleidx watch` watches) and
        waits until the watcher has committed the batch that contains it. Afterwards a query
        sees every change made before `sync` started. Exit 0 when synced, 5 on timeout.

        Example:
          cp -r Build/New.bundle Examples/ && bundleidx sync Examples && bundleidx query com.example.new icon --type png
        """
    )

    @Argument(help: "A watched root.")
    var root: String

    @Option(name: .long, help: "Give up after this many seconds (a positive number).")
    var timeout = 10.0

    func validate() throws {
        guard timeout.isFinite && timeout > 0 else {
            throw ValidationError("--timeout must be a positive number of seconds, not \(timeout)")
        }
    }

    func run() throws {
        do { try IndexWatcher.sync(root: root, timeout: timeout) } catch { throw fail(error) }
    }
}
