import Foundation

/// Walks a root on a thread of its own and hands the scanned bundles, in walk order, to the
/// calling thread, so that scanning the next bundle (directory reads, sorting, Info.plist
/// parsing) overlaps with writing the previous one on a second core. The calling thread also
/// reads each bundle's strings tables before writing it: the walk is the longer half, and the
/// tables are a third of it on real trees (docs/scanning.md, "Reading strings tables"). They are
/// read by the same function a plain scan uses, bundle after bundle in walk order, so the index
/// is the same whatever the timing.
///
/// The write transaction never leaves the calling thread: LMDB ties a write transaction and
/// its writer lock to the thread that began it. At most `capacity` scanned bundles wait, holding
/// at most about `entriesAhead` directory entries (and as many in the batch being written),
/// which bounds the memory the overlap costs. Sixteen small bundles let the two threads drift
/// apart without waking each other for every bundle: on the real corpus ×19 (8 200 bundles,
/// 11 files each) a capacity of 2 took a median 3.14 s against 2.77 s with 16 (load 4).
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

    // Everything below is guarded by `condition`; that is what makes the class safe to share
    // between the walking thread and the writing thread (@unchecked Sendable).
    private let condition = NSCondition()
    private var waiting: [Item] = []
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

    private init(capacity: Int) { self.capacity = capacity }

    /// The writer gave up: the walk stops at its next bundle.
    private struct Cancelled: Error {}

    /// Walks `root` and calls `consume` on this thread for every bundle found. When `consume`
    /// throws, the walk is stopped and waited for before the error is rethrown, so no thread
    /// outlives the build.
    /// `declaredBundles`: folders that are bundles whatever they hold (`TreeWalker`).
    /// With `unchangedIn`, bundles whose records there match the disk are handed on unscanned;
    /// `indexed` are the bundle paths it holds under `root` (checked ahead of the walk).
    static func run(root: String, declaredBundles: Set<String> = [], unchangedIn index: IndexStore? = nil,
                    indexed: [String] = [], capacity: Int = 16, consume: (Item) throws -> Void) throws -> TreeWalker.Report {
        let pipeline = ScanPipeline(capacity: capacity)
        let walking = Thread { pipeline.walk(root, declaredBundles, unchangedIn: index, indexed: indexed) }
        walking.stackSize = 8 << 20
        walking.start()
        // What the tables read here have to say: the walk's report was made without them.
        var tableWarnings: [String] = []
        // A file reached through a link and again where it lies is read once (Debian's GNUstep
        // applications: 570 table reads for 408 files in the real corpus ×1).
        var filesRead = FilesRead()
        do {
            while let items = try pipeline.next() {
                for item in items {
                    // The strings tables are read here, on the writing thread, which has time to
                    // spare while the walking thread lists directories (docs/scanning.md,
                    // "Reading strings tables").
                    guard case .scanned(var bundle) = item else { try consume(item); continue }
                    tableWarnings += BundleScanner.readFiles(of: &bundle, reads: &filesRead)
                    try consume(.scanned(bundle))
                }
            }
        } catch {
            pipeline.cancel()
            throw error
        }
        var report = try pipeline.finalReport()
        report.warnings += tableWarnings
        return report
    }

    private func walk(_ root: String, _ declaredBundles: Set<String>, unchangedIn index: IndexStore?, indexed: [String]) {
        let result = Result {
            var walker = TreeWalker()
            walker.declaredBundles = declaredBundles
            walker.readsFiles = false
            guard let index else { return try walker.walk(root: root) { try self.hand(.scanned($0)) } }
            return try index.read { snapshot in
                let unchanged = UnchangedBundles(snapshot: snapshot, root: root)
                let ahead = UnchangedBundlesAhead(bundles: indexed, root: root, index: index)
                defer { ahead.stop() }
                walker.unchanged = { path in
                    guard let reuse = ahead.reuse(path, otherwise: unchanged.reuse) else { return nil }
                    try self.hand(.unchanged(path: path, resources: reuse.resources))
                    return reuse.listings
                }
                return try walker.walk(root: root) { try self.hand(.scanned($0)) }
            }
        }
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    /// Walking thread: a scanned bundle waits while those waiting are `capacity` or hold
    /// `entriesAhead` entries (an unchanged one never waits: it holds nothing). Each wake-up of
    /// the writer costs two context switches, and an unchanged bundle gives it almost nothing to
    /// do, so it is woken for a scanned bundle and otherwise once per `unchangedBatch` items (and
    /// at the end).
    private func hand(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        var wake = waiting.count + 1 >= Self.unchangedBatch
        if case .scanned(let bundle) = item {
            while isFull && !cancelled { condition.wait() }
            scannedWaiting += 1
            entriesWaiting += bundle.resourceCount
            wake = true
        }
        if cancelled { throw Cancelled() }
        waiting.append(item)
        if wake { condition.broadcast() }
    }

    private static let unchangedBatch = 256

    /// No further scanned bundle may wait (guarded by `condition`).
    private var isFull: Bool {
        scannedWaiting >= capacity || (scannedWaiting > 0 && entriesWaiting >= Self.entriesAhead)
    }

    /// Writing thread: every item waiting, in walk order (at least one); nil when the walk is
    /// over; rethrows the walk's error.
    private func next() throws -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && outcome == nil { condition.wait() }
        if !waiting.isEmpty {
            // The walker may be asleep only when it was that far ahead.
            if isFull { condition.broadcast() }
            scannedWaiting = 0
            entriesWaiting = 0
            defer { waiting = [] }
            return waiting
        }
        if case .failure(let error) = outcome { throw error }
        return nil
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
