import Foundation

/// The incremental build's stamp checks (`UnchangedBundles`) on a thread of their own, ahead of
/// the walk. In a build that finds almost everything unchanged, the walking thread spent most
/// of its time on them (a `stat` per stamp, the decoding of every directory record), while the
/// writing thread had nothing to do; this thread takes that half to the second core
/// (docs/scanning.md, "Incremental builds").
///
/// The index knows, before the walk starts, which bundles it holds under the root; this thread
/// checks them in the order the walk will find them (`walkOrder`), at most `window` ahead of
/// the bundle the walk last asked about, and keeps each answer until the walk asks for it. The
/// walk never waits: when it finds no answer — this thread is behind, or still checking that
/// bundle — it checks the bundle itself and the next `share` ones, and this thread goes on
/// after them, so that when the checks are the larger half of the work both threads share
/// them. An answer is the same whoever makes it: a pure question to the index as the build
/// found it and to the disk, so the index written does not depend on the timing; the walk only
/// takes answers, in its own order.
final class UnchangedBundlesAhead: @unchecked Sendable {
    /// The bundles the index holds under the root, in walk order.
    private let order: [String]
    private let position: PathMap<Int>

    // Everything below is guarded by `condition` (hence @unchecked Sendable).
    private let condition = NSCondition()
    /// The first bundle of `order` neither thread has taken yet.
    private var next = 0
    /// The bundle this thread is checking now.
    private var checking: Int?
    /// The position of the last bundle the walk asked about.
    private var walkAt = -1
    /// Answers waiting for the walk (nil: none made, or already taken); a made answer of "read
    /// it again" is `.some(nil)`.
    private var answers: [UnchangedBundles.Reuse??]
    /// Answers before this position were taken or passed over by the walk.
    private var droppedBelow = 0
    private var stopped = false
    private var finished = false
    /// The thread sleeps, `window` ahead of the walk; it is woken when the walk comes within
    /// half of that (one wake-up per bundle cost two context switches each).
    private var resting = false
    /// How many checks this thread made (its answers taken or not); read after `stop()`.
    private(set) var checksMade = 0

    /// How far this thread checks ahead of the walk: enough to absorb a stretch of slow bundles,
    /// few enough that the waiting listings stay small.
    static let window = 64
    /// How many bundles the walk checks itself, after one it caught up with.
    static let share = 8

    /// Starts checking `bundles` (paths the index holds under `root`, any order) against the
    /// disk, in a read snapshot of `index` of its own. Call `stop()` when the walk is over.
    init(bundles: [String], root: String, index: IndexStore, linkedTimes: LinkedFolderTimes = LinkedFolderTimes()) {
        order = bundles.sorted(by: Self.walkOrder)
        var position: PathMap<Int> = [:]
        for (at, path) in order.enumerated() where position[path] == nil { position[path] = at }
        self.position = position
        answers = Array(repeating: nil, count: order.count)
        let thread = Thread { [self] in
            // A snapshot that cannot be opened leaves every check to the walk.
            _ = try? index.read { snapshot in check(UnchangedBundles(snapshot: snapshot, root: root, linkedTimes: linkedTimes)) }
            condition.lock()
            finished = true
            checking = nil
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// The reuse of `path` (the walk's question, `UnchangedBundles.reuse`): this thread's answer
    /// when it made one, else `check(path)` on the caller's thread.
    /// A path the index does not hold under the root (any directory the walk visits is asked
    /// about) is no unchanged bundle: nil at once.
    func reuse(_ path: String, otherwise check: (String) -> UnchangedBundles.Reuse?) -> UnchangedBundles.Reuse? {
        guard let at = position[path] else { return nil }
        condition.lock()
        if at > walkAt {
            walkAt = at
            // The walk does not come back: answers before this one are never asked for.
            while droppedBelow < at { answers[droppedBelow] = nil; droppedBelow += 1 }
            if resting && next <= walkAt + Self.window / 2 { condition.broadcast() }
        }
        var answer = answers[at]
        answers[at] = nil
        guard answer == nil && (next <= at || checking == at) else {
            condition.unlock()
            return answer ?? check(path)
        }
        // The walk caught up (this thread has not reached the bundle, or is checking it now).
        // It checks the next `share` bundles itself, while this thread goes on after them:
        // waiting for each bundle in turn cost a wake-up, as long as a check, every time.
        let untaken = max(next, at + 1)
        let shareEnd = min(order.count, at + 1 + Self.share)
        next = max(next, shareEnd)
        guard checking == at else {
            // Not reached: the walk checks it too (the next ones as it comes to them).
            condition.unlock()
            return check(path)
        }
        // This thread is checking it now. Checking it again made both threads `stat` the same
        // stamps (12 419 of the 78 712 `stat`s of a one-file build of the real corpus ×19), and
        // waiting for it idled the walk: the walk checks its share first, then takes this
        // thread's answer, made meanwhile.
        condition.unlock()
        let made = (untaken..<max(untaken, shareEnd)).map { ($0, check(order[$0])) }
        condition.lock()
        for (i, reuse) in made where i >= droppedBelow { answers[i] = .some(reuse) }
        while checking == at { condition.wait() }
        answer = answers[at]
        answers[at] = nil
        condition.unlock()
        return answer ?? check(path)
    }

    /// Stops the checks and waits until the thread has finished (every path of the walk calls it).
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        condition.broadcast()
        while !finished { condition.wait() }
    }

    /// The thread's loop: takes the next bundle while it is within `window` of the walk.
    private func check(_ unchanged: UnchangedBundles) {
        while true {
            condition.lock()
            while !stopped && next < order.count && next > walkAt + Self.window {
                resting = true
                condition.wait()
                resting = false
            }
            guard !stopped, next < order.count else { condition.unlock(); return }
            let at = next
            next += 1
            checking = at
            condition.unlock()

            let answer = unchanged.reuse(order[at])

            condition.lock()
            checking = nil
            checksMade += 1
            if at >= droppedBelow { answers[at] = .some(answer) }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The order in which `TreeWalker` finds bundles: depth first, the entries of a directory
    /// in byte order. That is byte order of the paths with `/` below every other byte: `a/b`
    /// comes before `a-b` (the walk finishes `a` before it reaches its sibling `a-b`).
    /// The bytes are compared in the strings' own buffers: through `String.UTF8View` the
    /// sort of a one-file build's 8 200 paths took ~0.5 % of its samples, before the walk began.
    static func walkOrder(_ a: String, _ b: String) -> Bool {
        let slash = UInt8(ascii: "/")
        return a.withUTF8Bytes { x in
            b.withUTF8Bytes { y in
                for i in 0..<min(x.count, y.count) where x[i] != y[i] {
                    return x[i] == slash || (y[i] != slash && x[i] < y[i])
                }
                return x.count < y.count
            }
        }
    }
}
