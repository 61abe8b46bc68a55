import ArgumentParser
import BundleIdxCommon
import BundleIndex
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep the index exact while files change (inotify).",
        discussion: """
        Opens (or builds) the index for ROOT..., brings it up to date — after a crash only the \
        bundles whose directories or Info.plist changed are scanned again — then applies file \
        changes as they happen: events are coalesced and written in one transaction once the \
        tree has been quiet for --settle-ms (at the latest after --max-delay-ms). Readers in \
        other processes keep querying meanwhile and see each batch whole. SIGINT and SIGTERM \
        apply what is pending and exit 0. Logs go to standard error.

        When the kernel's watch limit (fs.inotify.max_user_watches) is reached, the watcher \
        says so, keeps running and rescans the unwatched directories every --rescan-interval \
        seconds; `bundleidx stats` shows the state.

        Example:
          bundleidx watch Examples &
          touch Examples/Phone.app/new.png && bundleidx sync Examples
          bundleidx query Examples/Phone.app new --type png
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: ArgumentHelp("Directories to watch.", valueName: "root"))
    var roots: [String]

    // `.unconditional` for the numbers: a negative one reaches `validate` and its message.
    @Option(name: .customLong("settle-ms"), parsing: .unconditional, help: "Quiet time before a batch is applied, in milliseconds.")
    var settleMilliseconds = 20

    @Option(name: .customLong("max-delay-ms"), parsing: .unconditional, help: "Longest wait before a batch is applied in a busy tree, in milliseconds.")
    var maxDelayMilliseconds = 500

    @Option(name: .customLong("rescan-interval"), parsing: .unconditional, help: "Seconds between rescans of unwatched directories (degraded mode).")
    var rescanInterval = 30

    @Flag(name: .long, help: "Log every applied batch.")
    var verbose = false

    func validate() throws {
        if roots.isEmpty { throw ValidationError("give at least one ROOT directory to watch") }
        if settleMilliseconds < 0 || maxDelayMilliseconds <= 0 || rescanInterval <= 0 {
            throw ValidationError("--settle-ms must be ≥ 0; --max-delay-ms and --rescan-interval > 0")
        }
    }

    func run() throws {
        OpenFileLimit.raiseToHard()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .info
            return handler
        }
        let logger = Logger(label: "bundleidx.watch")
        var settings = IndexWatcher.Options()
        settings.settle = Double(settleMilliseconds) / 1000
        settings.maxDelay = Double(maxDelayMilliseconds) / 1000
        settings.rescanInterval = Double(rescanInterval)
        let stop = StopSignal.install()
        do {
            let watcher = try IndexWatcher(roots: roots, indexPath: options.resolvedPath, options: settings, logger: logger)
            try watcher.catchUp()
            logger.info("watching", metadata: ["roots": "\(watcher.roots.joined(separator: " "))", "index": "\(options.resolvedPath)"])
            try watcher.run(stopFD: stop)
            logger.info("stopped")
        } catch {
            throw ExitStatus.reporting(error)
        }
    }
}

/// SIGINT/SIGTERM write a byte into a pipe the watcher polls (self-pipe: only write(2) runs in
/// the handler), and into a second one a watchdog thread waits on: a watcher busy with a long
/// catch-up or rescan does not poll, so the watchdog ends the process 3 s after the signal if it
/// is still running. Nothing is lost: a batch cut short was never committed, and the next
/// watcher catches up from the index's last commit.
enum StopSignal {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var watchdogWriteEnd: Int32 = -1
    nonisolated(unsafe) private static var watchdogReadEnd: Int32 = -1
    /// Seconds between the stop signal and the watchdog's exit.
    static let grace: UInt32 = 3

    static func install() -> Int32 {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        writeEnd = fds[1]
        var watchdog: [Int32] = [0, 0]
        pipe(&watchdog)
        (watchdogReadEnd, watchdogWriteEnd) = (watchdog[0], watchdog[1])
        var thread = pthread_t()
        pthread_create(&thread, nil, { _ in
            var b: UInt8 = 0
            while read(StopSignal.watchdogReadEnd, &b, 1) < 0 && errno == EINTR {}
            sleep(StopSignal.grace)
            let message = "bundleidx: watch: still busy \(StopSignal.grace) s after the stop signal; exiting without "
                + "finishing the batch in progress (the index keeps its last commit)\n"
            writeStderr(message)
            _exit(0)
        }, nil)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { _ in
                var b: UInt8 = 1
                _ = write(StopSignal.writeEnd, &b, 1)
                _ = write(StopSignal.watchdogWriteEnd, &b, 1)
            }
            sigaddset(&unblock, sig)
        }
        // A parent may have started us with these signals blocked (a blocked mask is inherited).
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        return fds[0]
    }
}
