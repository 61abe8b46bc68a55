// A watcher running on its own thread over a temporary tree, for the watch tests.
import Foundation
import Logging
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

final class WatcherHarness: @unchecked Sendable {
    let root: String
    let indexPath: String
    let watcher: IndexWatcher
    /// The watcher's roots (absolute).
    let watched: [String]
    private let stopPipe: [Int32]
    private let done = DispatchSemaphore(value: 0)
    private(set) var failure: Error?

    /// Builds `files` under a new root, starts watching it (after catching up). `prepare` runs
    /// before the watcher opens the index, with the root and the index path.
    /// With `rootIsALink` the root is a symbolic link to the folder holding `files`; with
    /// `rootIn`, the root is a new folder in that folder (a temporary folder by default); with
    /// `watching`, the watcher's roots are those folders of it (relative), not the root.
    init(_ files: [String: String] = [:], links: [String: String] = [:], options: IndexWatcher.Options = IndexWatcher.Options(),
         rootIsALink: Bool = false, rootIn parent: String? = nil, watching: [String]? = nil,
         configure: (IndexWatcher) -> Void = { _ in },
         prepare: (_ root: String, _ indexPath: String) throws -> Void = { _, _ in }) throws {
        let fixture = try BundleFixture(files, links: links)
        root = parent.map { $0 + "/root-" + UUID().uuidString } ?? makeTempDirectory(prefix: "watch")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        indexPath = root + "-index"
        try FileManager.default.removeItem(atPath: root)
        if rootIsALink {
            try FileManager.default.moveItem(atPath: fixture.root, toPath: root + "-real")
            try FileManager.default.createSymbolicLink(atPath: root, withDestinationPath: root + "-real")
        } else {
            try FileManager.default.moveItem(atPath: fixture.root, toPath: root)
        }
        try prepare(root, indexPath)
        let top = root
        let watched = watching?.map { top + "/" + $0 } ?? [top]
        self.watched = watched
        watcher = try IndexWatcher(roots: watched, indexPath: indexPath, options: options,
                                   logger: Logger(label: "test.watch", factory: { _ in SwiftLogNoOpLogHandler() }))
        configure(watcher)
        try watcher.catchUp()
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        stopPipe = fds
        let thread = Thread { [self] in
            do { try watcher.run(stopFD: stopPipe[0]) } catch { failure = error }
            done.signal()
        }
        thread.start()
    }

    /// Stops the watcher's loop; a loop that ended with an error fails the test.
    func stop() {
        stopLoop()
        if let failure { Issue.record("the watcher's loop failed: \(failure)") }
    }

    /// Stops the watcher's loop, which must have ended with an error; `check` looks at it.
    func stopExpectingFailure(_ check: (any Error) -> Void) {
        stopLoop()
        if let failure { check(failure) } else { Issue.record("the watcher's loop ended without an error") }
    }

    private func stopLoop() {
        var b: UInt8 = 1
        _ = Glibc.write(stopPipe[1], &b, 1)
        done.wait()
        close(stopPipe[0])
        close(stopPipe[1])
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: root + "-real")
        try? FileManager.default.removeItem(atPath: indexPath)
    }

    /// Options whose degraded-mode retry comes every 0.2 s, for tests that wait for one.
    static var quickRetry: IndexWatcher.Options {
        var options = IndexWatcher.Options()
        options.rescanInterval = 0.2
        return options
    }

    func sync() throws { try IndexWatcher.sync(root: root, timeout: 30) }

    /// `sync` of the root `relative` (one of `watching`).
    func sync(_ relative: String) throws { try IndexWatcher.sync(root: root + "/" + relative, timeout: 30) }

    func bundle(_ relative: String, context: SearchContext = .foundationLinux) throws -> IndexedBundle? {
        try IndexReader(path: indexPath).bundle(atPath: root + "/" + relative, context: context)
    }

    func verify() throws -> [IndexVerifier.Difference] { try IndexVerifier.verify(indexPath: indexPath, roots: watched) }

    // file helpers
    func write(_ relative: String, _ content: String = "") throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
    }

    func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: root + "/" + relative) }

    func move(_ from: String, _ to: String) throws {
        try FileManager.default.moveItem(atPath: root + "/" + from, toPath: root + "/" + to)
    }
}
