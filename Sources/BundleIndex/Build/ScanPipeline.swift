import Foundation

/// Walks a root on a thread of its own and hands the scanned bundles, in walk order, to the
/// calling thread, so that scanning the next bundle (directory reads, sorting) overlaps with
/// writing the previous one on a second core. The rest of a bundle's scan, which needs only its
/// listings, and its files (Info.plist, InfoPlist.strings, its strings tables) are done between
/// the two, by whichever thread is free first: the writer takes the first bundle waiting, the
/// walker, when it is that far ahead, the last one (docs/scanning.md, "Reading strings tables").
/// They are done by the same function a plain scan uses, and each bundle is written in walk
/// order, so the index is the same whatever the timing.
///
/// The write transaction never leaves the calling thread: LMDB ties a write transaction and
/// its writer lock to the thread that began it. At most `capacity` scanned bundles wait, holding
/// at most about `entriesAhead` directory entries (and as many in the batch being written),
/// which bounds the memory the overlap costs. The walk is bursty (a stretch of small bundles, then
/// a large folder that holds none), so the room has to let the threads drift apart: on the real
/// corpus ×18 (7 790 bundles) with 16 the writer still waited ~1 000 times for an empty queue and
/// the walker ~100 times for a full one (0.2 s and 0.1 s of a 1.5 s build); with 64, ~300 and
/// ~10 times (0.08 s and 0.01 s). A capacity of 2 had taken 3.14 s against 2.77 s with 16 on the
/// real corpus ×19 (load 4) before the files were read by both threads.
///
/// An incremental build gives the pipeline the index as it was and the bundles it holds under
/// the root: whether each bundle the walk finds is unchanged (`UnchangedBundles`) is then checked
/// ahead of the walk on a third thread (`UnchangedBundlesAhead`), and the walking thread hands
/// those on without scanning them.
final class ScanPipeline: @unchecked Sendable {
    /// What the walk hands on: a bundle scanned afresh, or one the index holds unchanged.
    enum Item {
        case scanned(ScannedBundle)
        case unchanged(path: String, resources: Int)

        var path: String {
            switch self {
            case .scanned(let bundle): bundle.path
            case .unchanged(let path, _): path
            }
        }
    }

    /// An item in the queue, numbered in walk order, and whether its files are read yet.
    private struct Waiting {
        let number: Int
        var item: Item
        var files: Files
        /// A scanned bundle's directory entries (`resourceCount`, counted once); nil for an
        /// unchanged one.
        let entries: Int?
    }

    private enum Files {
        /// Waiting for either thread to read them (`BundleScanner.readFiles`).
        case toRead
        /// A thread is reading them; the item is back when it is done.
        case reading
        /// Read (an unchanged bundle has none), with the warnings they gave.
        case read(warnings: [String])
        /// A read met a shortage of descriptors or memory (`FileSystem.isShortage`): the
        /// writer stops the build with this error when the bundle's turn comes.
        case failed(any Error)

        var isRead: Bool {
            switch self {
            case .read, .failed: true
            case .toRead, .reading: false
            }
        }

        var isToRead: Bool {
            if case .toRead = self { true } else { false }
        }
    }

    // Everything below is guarded by `condition`; that is what makes the class safe to share
    // between the walking thread and the writing thread (@unchecked Sendable).
    private let condition = NSCondition()
    private var waiting: [Waiting] = []
    /// The number the next item handed on gets.
    private var nextNumber = 0
    /// How many of `waiting` are scanned bundles (the others hold no listings), and their
    /// directory entries.
    private var scannedWaiting = 0
    private var entriesWaiting = 0
    /// The entries scanned bundles may hold while they wait (one bundle larger than this waits
    /// alone).
    private static let entriesAhead = 100_000
    private var outcome: Result<TreeWalker.Report, any Error>?
    private var cancelled = false
    private let capacity: Int
    /// Files read in this build through links, for both threads (`FilesRead`); not guarded by
    /// `condition` (it has its own lock).
    private let filesRead = FilesRead()

    private init(capacity: Int) { self.capacity = capacity }

    /// The writer gave up: the walk stops at its next bundle.
    private struct Cancelled: Error {}

    /// Walks `root` and calls `consume` on this thread for every bundle found. When `consume`
    /// throws, the walk is stopped and waited for before the error is rethrown, so no thread
    /// outlives the build.
    /// `declaredBundles`: folders that are bundles whatever they hold (`TreeWalker`).
    /// With `unchangedIn`, bundles whose records there match the disk are handed on unscanned;
    /// `indexed` are the bundle paths it holds under `root` (checked ahead of the walk).
    static func run(root: String, declaredBundles: PathSet = [], unchangedIn index: IndexStore? = nil,
                    indexed: [String] = [], capacity: Int = 64, consume: (Item) throws -> Void) throws -> TreeWalker.Report {
        let pipeline = ScanPipeline(capacity: capacity)
        let walking = Thread { pipeline.walk(root, declaredBundles, unchangedIn: index, indexed: indexed) }
        walking.stackSize = 8 << 20
        walking.start()
        // What the files read have to say: the walk's report was made without them. In walk
        // order, whichever thread read them.
        var fileWarnings: [String] = []
        do {
            while let step = try pipeline.next() {
                switch step {
                case .read(let number, var bundle):
                    let warnings = try BundleScanner.readFiles(of: &bundle, reads: pipeline.filesRead)
                    pipeline.finishReading(number, bundle, warnings: warnings)
                case .write(let items):
                    for (item, warnings) in items {
                        fileWarnings += warnings
                        try consume(item)
                    }
                }
            }
        } catch {
            pipeline.cancel()
            throw error
        }
        var report = try pipeline.finalReport()
        report.warnings += fileWarnings
        return report
    }

    private func walk(_ root: String, _ declaredBundles: PathSet, unchangedIn index: IndexStore?, indexed: [String]) {
        // What this thread's questions by path ran short of (`ShortageLog`): the writer's
        // transaction checks its own thread only.
        let shortages = ShortageLog.mark()
        var result = Result {
            var walker = TreeWalker()
            walker.declaredBundles = declaredBundles
            walker.readsFiles = false
            guard let index else { return try walker.walk(root: root) { try self.hand(.scanned($0)) } }
            return try index.read { snapshot in
                let unchanged = UnchangedBundles(snapshot: snapshot, root: root)
                let ahead = UnchangedBundlesAhead(bundles: indexed, root: root, index: index,
                                                  linkedTimes: unchanged.linkedTimes)
                defer { ahead.stop() }
                walker.unchanged = { path in
                    guard let reuse = ahead.reuse(path, otherwise: unchanged.reuse) else { return nil }
                    try self.hand(.unchanged(path: path, resources: reuse.resources))
                    return (reuse.listings, reuse.skipped)
                }
                return try walker.walk(root: root) { try self.hand(.scanned($0)) }
            }
        }
        condition.lock()
        // The bundles still waiting to be read are shared with the writer to the end.
        if case .success = result {
            while !cancelled, readLastWaiting() {}
            do throws(BundleIndexError) {
                try ShortageLog.throwIfNoted(since: shortages)
            } catch {
                result = .failure(error)
            }
        }
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    /// Walking thread: a scanned bundle waits while those waiting are `capacity` or hold
    /// `entriesAhead` entries (an unchanged one never waits: it holds nothing); meanwhile this
    /// thread reads the files of the last bundle waiting with files to read (the writer takes
    /// them from the front), so neither thread idles while the other has work: which thread is
    /// the longer depends on the tree (on the real corpus ×19 the walk's, the writer busy 87 %
    /// of a build). Each wake-up of the writer costs two context switches, and an unchanged bundle
    /// gives it almost nothing to do, so it is woken for a scanned bundle and otherwise once per
    /// `unchangedBatch` items (and at the end).
    private func hand(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        var wake = waiting.count + 1 >= Self.unchangedBatch
        var files = Files.read(warnings: [])
        var entries: Int? = nil
        if case .scanned(let bundle) = item {
            while isFull && !cancelled {
                if !readLastWaiting() { condition.wait() }
            }
            entries = bundle.resourceCount
            scannedWaiting += 1
            entriesWaiting += bundle.resourceCount
            files = .toRead
            wake = true
        }
        if cancelled { throw Cancelled() }
        waiting.append(Waiting(number: nextNumber, item: item, files: files, entries: entries))
        nextNumber += 1
        if wake { condition.broadcast() }
    }

    private static let unchangedBatch = 256

    /// No further scanned bundle may wait (guarded by `condition`).
    private var isFull: Bool {
        scannedWaiting >= capacity || (scannedWaiting > 0 && entriesWaiting >= Self.entriesAhead)
    }

    /// Walking thread, holding `condition`: reads the files of the last waiting bundle with
    /// files to read, with `condition` unlocked meanwhile; false when there is none.
    private func readLastWaiting() -> Bool {
        guard let i = waiting.lastIndex(where: \.files.isToRead) else { return false }
        let number = waiting[i].number
        var bundle = takeForReading(i)
        condition.unlock()
        let files: Files
        do {
            files = .read(warnings: try BundleScanner.readFiles(of: &bundle, reads: filesRead))
        } catch {
            files = .failed(error)
        }
        condition.lock()
        put(number, bundle, files)
        return true
    }

    /// What the writing thread does next.
    private enum Step {
        /// Read this bundle's files, then `finishReading`.
        case read(number: Int, ScannedBundle)
        /// Write these, in this order (their files read, with the warnings those gave).
        case write([(Item, warnings: [String])])
    }

    /// Writing thread: the items at the front whose files are read, in walk order, else a
    /// bundle whose files to read (the first one); nil when the walk is over and every item
    /// written; rethrows the walk's error.
    private func next() throws -> Step? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let ready = waiting.prefix { $0.files.isRead }.count
            if ready > 0 {
                // The walker may be asleep only when it was that far ahead.
                if isFull { condition.broadcast() }
                var out: [(Item, warnings: [String])] = []
                out.reserveCapacity(ready)
                // Moved out, not copied: a copy of a scanned bundle retains each of its arrays
                // and strings, and the copy in the queue released them again.
                for _ in 0..<ready {
                    let w = waiting.removeFirst()
                    if let entries = w.entries {
                        scannedWaiting -= 1
                        entriesWaiting -= entries
                    }
                    switch w.files {
                    case .read(let warnings): out.append((w.item, warnings))
                    case .failed(let error): throw error
                    case .toRead, .reading: preconditionFailure("only items whose files are read are written")
                    }
                }
                return .write(out)
            }
            if let i = waiting.firstIndex(where: \.files.isToRead) {
                return .read(number: waiting[i].number, takeForReading(i))
            }
            if waiting.isEmpty, let outcome {
                if case .failure(let error) = outcome { throw error }
                return nil
            }
            condition.wait()
        }
    }

    /// Holding `condition`: the scanned bundle waiting at `i`, taken out of the queue while its
    /// files are read (marked `reading`; `put` brings it back). Taken, not copied: finishing its
    /// scan changes its directories, and a copy still in the queue would make that a copy of
    /// them all.
    private func takeForReading(_ i: Int) -> ScannedBundle {
        guard case .scanned(let bundle) = waiting[i].item else { preconditionFailure("only scanned bundles have files to read") }
        waiting[i].item = .unchanged(path: bundle.path, resources: 0)
        waiting[i].files = .reading
        return bundle
    }

    /// Writing thread: the bundle `next()` handed out, its files read.
    private func finishReading(_ number: Int, _ bundle: ScannedBundle, warnings: [String]) {
        condition.lock()
        defer { condition.unlock() }
        put(number, bundle, .read(warnings: warnings))
    }

    /// Holding `condition`: puts a bundle whose files were read (or failed to be) back in its
    /// place, and wakes a thread that may wait for it.
    private func put(_ number: Int, _ bundle: ScannedBundle, _ files: Files) {
        guard let i = waiting.firstIndex(where: { $0.number == number }) else {
            preconditionFailure("a bundle being read left the queue")
        }
        waiting[i].item = .scanned(bundle)
        waiting[i].files = files
        condition.broadcast()
    }

    /// After `next()` returned nil, so the walk's outcome is set.
    private func finalReport() throws -> TreeWalker.Report {
        condition.lock()
        defer { condition.unlock() }
        guard let outcome else { preconditionFailure("the walk has not finished") }
        return try outcome.get()
    }

    /// Stops the walk and waits until its thread has finished.
    private func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        condition.broadcast()
        while outcome == nil { condition.wait() }
    }
}
