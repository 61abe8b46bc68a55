/// The answers the batch already wrote, valid for one LMDB transaction (docs/batch.md, "Reading
/// and writing"): found again by the exact bytes of their request line, or by the request's key
/// (the members the engine reads, `BatchQueryEngine`'s `Query.key`) when the same request comes
/// spelled otherwise. A line asked again before the next commit gets the same bytes without
/// being decoded or looked up again; the first line after a commit (a build, a watcher's batch)
/// is answered from the index as it is then.
///
/// An answer is a function of the request, the engine's context and path form (fixed for the
/// engine), the current directory (for relative bundle paths; the batch never changes it) and
/// the index. Error answers are not kept: "bundle not in the index" also depends on the file
/// system, and a malformed line costs no lookup.
final class LineAnswers {
    /// Lines (and request keys) longer than this are answered afresh every time (requests are
    /// a few hundred bytes).
    static let longestLine = 4096
    /// Answers longer than this are not kept (a `paths` answer of a large bundle).
    static let longestAnswer = 1 << 16
    /// At most this many bytes of answers; when full, everything is forgotten.
    static let answerBytes = 16 << 20

    private let lines = ByteKeyedTable<Range<Int>>(capacity: 1 << 15, byteCapacity: 8 << 20)
    private let requests = ByteKeyedTable<Range<Int>>(capacity: 1 << 15, byteCapacity: 8 << 20)
    /// The kept answers one after another; both tables hold ranges of it, so a request met
    /// under a second spelling shares the first one's bytes.
    private var answers: [UInt8] = []
    /// The transaction whose state the kept answers show.
    private var transaction: UInt64?

    /// How many lines and how many requests have an answer kept.
    var count: (lines: Int, requests: Int) { (lines.count, requests.count) }

    /// Forgets every answer unless the index has not changed since they were kept: `newest`,
    /// the index's newest transaction id read before the line is answered, is the one they were
    /// kept in. When it moved, the answers kept from now on are labelled `visible()`'s, the
    /// commit a read begun now sees, and forgotten unless that is still theirs. Labelled
    /// `newest`, an answer read in the milliseconds when LMDB has written a commit's meta page
    /// but not yet shown the commit to readers was the commit before's, kept as the new one's:
    /// a line asked again and again kept that stale answer until the next commit (a watcher's
    /// change never seen by `tools/watch-latency`'s polling batch). An answer read a little
    /// later, after another commit, is newer than its label: the next line sees the id moved.
    /// `visible` nil (the read failed): everything is forgotten, and the line's own read meets
    /// the failure.
    func follow(newest: UInt64, visible: () -> UInt64?) {
        guard newest != transaction else { return }
        let seen = visible()
        guard seen == nil || seen != transaction else { return }
        removeAll()
        transaction = seen
    }

    /// The answer kept for the line `line` (its xxHash `hash`).
    func answer(toLine line: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Range<Int>? {
        lines.value(for: line, hash: hash)
    }

    /// The answer kept for the request whose key is `key` (its xxHash `hash`).
    func answer(toRequest key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Range<Int>? {
        requests.value(for: key, hash: hash)
    }

    /// Appends the kept answer `range` to `out`.
    func write(_ range: Range<Int>, into out: inout JSONOutput) {
        answers.withUnsafeBufferPointer { out.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Keeps the bytes of `answer` and returns where they are, for `remember`; nil for an answer
    /// too long to keep. Keeping more than `answerBytes` forgets everything first.
    func keep(_ answer: ArraySlice<UInt8>) -> Range<Int>? {
        guard answer.count <= Self.longestAnswer else { return nil }
        if answers.count + answer.count > Self.answerBytes { removeAll() }
        if answers.capacity == 0 { answers.reserveCapacity(Self.answerBytes) }   // no copies as it fills
        let start = answers.count
        answers.append(contentsOf: answer)
        return start..<answers.count
    }

    /// Remembers the kept answer `range` as the answer to the line `line`.
    func remember(_ range: Range<Int>, line: UnsafeBufferPointer<UInt8>, hash: UInt64) {
        guard line.count <= Self.longestLine else { return }
        lines.insert(range, for: line, hash: hash)
    }

    /// Remembers the kept answer `range` as the answer to the request whose key is `key`.
    func remember(_ range: Range<Int>, request key: UnsafeBufferPointer<UInt8>, hash: UInt64) {
        guard key.count <= Self.longestLine else { return }
        requests.insert(range, for: key, hash: hash)
    }

    private func removeAll() {
        lines.removeAll()
        requests.removeAll()
        answers.removeAll(keepingCapacity: true)
    }
}
