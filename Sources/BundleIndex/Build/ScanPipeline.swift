import Foundation

/// Walks a root on a thread of its own and hands the scanned bundles, in walk order, to the
/// calling thread, so that scanning the next bundle (directory reads, sorting, Info.plist
/// parsing) overlaps with writing the previous one on a second core.
///
/// The write transaction never leaves the calling thread: LMDB ties a write transaction and
/// its writer lock to the thread that began it. At most `capacity` scanned bundles wait, which
/// bounds the memory the overlap costs.
final class ScanPipeline: @unchecked Sendable {
    // Everything below is guarded by `condition`; that is what makes the class safe to share
    // between the walking thread and the writing thread (@unchecked Sendable).
    private let condition = NSCondition()
    private var waiting: [ScannedBundle] = []
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
    static func run(root: String, declaredBundles: Set<String> = [], capacity: Int = 2,
                    consume: (ScannedBundle) throws -> Void) throws -> TreeWalker.Report {
        let pipeline = ScanPipeline(capacity: capacity)
        let walking = Thread { pipeline.walk(root, declaredBundles) }
        walking.stackSize = 8 << 20
        walking.start()
        do {
            while let bundle = try pipeline.next() { try consume(bundle) }
        } catch {
            pipeline.cancel()
            throw error
        }
        return try pipeline.finalReport()
    }

    private func walk(_ root: String, _ declaredBundles: Set<String>) {
        var walker = TreeWalker()
        walker.declaredBundles = declaredBundles
        let result = Result { try walker.walk(root: root) { try self.hand($0) } }
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    /// Walking thread: waits while the writer is `capacity` bundles behind.
    private func hand(_ bundle: ScannedBundle) throws {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        waiting.append(bundle)
        condition.broadcast()
    }

    /// Writing thread: the next bundle, nil when the walk is over; rethrows the walk's error.
    private func next() throws -> ScannedBundle? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && outcome == nil { condition.wait() }
        if !waiting.isEmpty {
            condition.broadcast()
            return waiting.removeFirst()
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
