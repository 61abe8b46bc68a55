/// The answers the batch already wrote, by the exact bytes of their request lines, valid for
/// one LMDB transaction (docs/batch.md, "Repeated lines"): a line asked again before the next
/// commit gets the same bytes back without being decoded or looked up again, and the first line
/// after a commit (a build, a watcher's batch) is answered from the index as it is then.
///
/// An answer is a function of the line, the engine's context and path form (fixed for the
/// engine), the current directory (for relative bundle paths; the batch never changes it) and
/// the index. Error answers are not kept: "bundle not in the index" also depends on the file
/// system, and a malformed line costs no lookup.
struct LineAnswers {
    /// Lines longer than this are answered afresh every time (requests are a few hundred bytes).
    static let longestLine = 4096
    /// Answers longer than this are not kept (a `paths` answer of a large bundle).
    static let longestAnswer = 1 << 16

    private var lines = ByteKeyedTable<Range<Int>>(capacity: 1 << 15, byteCapacity: 8 << 20)
    /// The kept answers one after another; `lines` holds each one's range.
    private var answers: [UInt8] = []
    /// At most this many bytes of answers; when full, everything is forgotten.
    private static let answerBytes = 16 << 20
    /// The transaction whose state the kept answers show.
    private var transaction: UInt64?

    /// How many answers are kept.
    var count: Int { lines.count }

    /// Forgets every answer unless `newest`, the index's newest transaction id read before the
    /// line is answered, is the one they were kept in; answers kept from now on are `newest`'s.
    /// (An answer read a little later, after another commit, is newer than its label: the next
    /// line sees the id moved and forgets it.)
    mutating func follow(transaction newest: UInt64) {
        guard newest != transaction else { return }
        lines.removeAll()
        answers.removeAll(keepingCapacity: true)
        transaction = newest
    }

    /// Appends the kept answer to `line` (its xxHash `hash`) to `out`; false when there is none.
    func write(answerTo line: UnsafeBufferPointer<UInt8>, hash: UInt64, into out: inout JSONOutput) -> Bool {
        guard let range = lines.value(for: line, hash: hash) else { return false }
        answers.withUnsafeBufferPointer { out.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        return true
    }

    /// Keeps `answer` as the answer to `line`, asked for the first time since `follow`.
    mutating func remember(_ answer: ArraySlice<UInt8>, to line: UnsafeBufferPointer<UInt8>, hash: UInt64) {
        guard line.count <= Self.longestLine && answer.count <= Self.longestAnswer else { return }
        if lines.count >= lines.capacity || answers.count + answer.count > Self.answerBytes {
            lines.removeAll()
            answers.removeAll(keepingCapacity: true)
        }
        let start = answers.count
        answers.append(contentsOf: answer)
        lines.insert(start..<answers.count, for: line, hash: hash)
    }
}
