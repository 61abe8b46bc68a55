/// Where `DirectLookup` reads what a directory holds for a name: a snapshot of the index (the
/// bundle's `DirectoryTables` first, then the directory's record), or the tables alone
/// (`kept(transaction:)`), which answer a lookup without beginning a read transaction when
/// every directory it reads is kept for the newest commit. One type for both, not a protocol:
/// a lookup that the tables cannot settle runs again in a snapshot, through the same code
/// (one specialization per kind of source would fetch twice the instructions).
struct DirectorySource {
    /// Nil: the tables alone.
    private let snapshot: IndexSnapshot?
    /// The commit whose tables are read.
    private let transaction: UInt64

    static func snapshot(_ snapshot: IndexSnapshot) -> DirectorySource {
        DirectorySource(snapshot: snapshot, transaction: snapshot.transactionID)
    }

    /// What the bundle keeps in memory for commit `transaction` and nothing more: the tables of
    /// `DirectoryTables` and the root fallback's steps. A directory without a kept table (read
    /// once so far, read from the index each time, or not read at all) throws `NotKept`, and
    /// the caller asks again in a snapshot. Nothing is noted here: the snapshot's read notes
    /// the directory as a first ask always has.
    static func kept(transaction: UInt64) -> DirectorySource {
        DirectorySource(snapshot: nil, transaction: transaction)
    }

    /// A class, thrown as the one instance: throwing a struct would allocate its box each time.
    final class NotKept: Error, Sendable {
        static let shared = NotKept()
    }

    /// What directory `directory`, spelled `path`, of `plan`'s bundle holds for `name`.
    func candidates(_ directory: DirectoryKey, plan: SearchPlan, path: UnsafeRawBufferPointer,
                    name: UnsafeRawBufferPointer) throws -> NameCandidates {
        guard let snapshot else {
            guard let kept = plan.directories.kept(directory, path: path, name: name, transaction: transaction) else {
                throw NotKept.shared
            }
            return kept
        }
        if let kept = try plan.directories.candidates(bundle: plan.record.id, directory, path: path, name: name, in: snapshot) {
            return kept
        }
        return try snapshot.nameCandidates(bundle: plan.record.id, directory, path: path, name: name)
    }

    /// The version-0 root fallback's steps (`SearchPlan.rootBase(in:)`); nil when the bundle
    /// has no fallback.
    func rootBase(of plan: SearchPlan) throws -> SearchBase? {
        guard let snapshot else {
            guard plan.hasRootFallback else { return nil }
            guard let kept = plan.keptRootBase(transaction: transaction) else { throw NotKept.shared }
            return kept
        }
        return try plan.rootBase(in: snapshot)
    }
}
