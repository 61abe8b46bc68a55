/// Where `DirectLookup` reads what a directory holds for a name: a snapshot of the index (the
/// bundle's `DirectoryTables` first, then the directory's record), or, for a first ask, the
/// tables kept for the newest commit first and a read transaction begun only when a directory
/// is not kept there (`lazy(store:transaction:)`): a lookup whose every directory is kept
/// begins none. One type for both, not a protocol: one specialization of the lookup per kind
/// of source fetched twice the instructions.
struct DirectorySource {
    /// The snapshot read, once there is one.
    private var snapshot: IndexSnapshot?
    /// The commit whose kept tables are read: the snapshot's, or the newest when the source
    /// begins lazily.
    private let transaction: UInt64
    /// For a lazy source: where its transaction comes from, and the transaction once begun
    /// (`end()` ends it).
    private unowned(unsafe) let store: IndexStore?
    private var begun: LMDBTransaction?

    static func snapshot(_ snapshot: IndexSnapshot) -> DirectorySource {
        DirectorySource(snapshot: snapshot, transaction: snapshot.transactionID, store: nil)
    }

    /// Reads the tables kept for commit `transaction` (the newest when the lookup starts), and
    /// begins a read transaction of `store` at the first directory not kept there. If that
    /// transaction shows a later commit, what was read from the tables may be older than it,
    /// and `Restart` is thrown: the caller asks again in a snapshot. Also thrown where the
    /// environment is lockless (its reads are checked by `IndexStore.read`). The caller calls
    /// `end()` in every case.
    static func lazy(store: IndexStore, transaction: UInt64) -> DirectorySource {
        DirectorySource(snapshot: nil, transaction: transaction, store: store)
    }

    private init(snapshot: IndexSnapshot?, transaction: UInt64, store: IndexStore?) {
        self.snapshot = snapshot
        self.transaction = transaction
        self.store = store
    }

    /// A class, thrown as the one instance: throwing a struct would allocate its box each time.
    final class Restart: Error, Sendable {
        static let shared = Restart()
    }

    /// Whether a lazy source has begun a transaction (read the index).
    var readIndex: Bool { begun != nil }

    /// Ends the transaction a lazy source began, if any.
    mutating func end() {
        guard let begun, let store else { return }
        store.environment.endRead(begun)
        self.begun = nil
        snapshot = nil
    }

    /// The snapshot to read, begun now if the source is lazy and has none.
    private mutating func reading() throws -> IndexSnapshot {
        if let snapshot { return snapshot }
        guard let store, let txn = try store.environment.beginReadTransaction() else { throw Restart.shared }
        begun = txn
        let snapshot = IndexSnapshot(store: store, txn: txn)
        self.snapshot = snapshot
        guard txn.id == transaction else { throw Restart.shared }
        return snapshot
    }

    /// What directory `directory`, spelled `path`, of `plan`'s bundle holds for `name`. With
    /// `marked`, a folder the bundle's directory marks lack is not read (`DirectoryMarks`); the
    /// caller leaves it out for a folder whose existence the plan has settled already (a search
    /// step without a subdirectory, whose lproj folder the record lists), where the marks would
    /// only add their search (~75 instructions).
    mutating func candidates(_ directory: DirectoryKey, plan: SearchPlan, path: UnsafeRawBufferPointer,
                             name: UnsafeRawBufferPointer, marked: Bool) throws -> NameCandidates {
        if marked, !plan.mayHoldDirectory(directory.hash, in: transaction) { return .none }
        if snapshot == nil, let kept = plan.directories.kept(directory, path: path, name: name, transaction: transaction) {
            return kept
        }
        let snapshot = try reading()
        if let kept = try plan.directories.candidates(bundle: plan.record.id, directory, path: path, name: name, in: snapshot) {
            return kept
        }
        return try snapshot.nameCandidates(bundle: plan.record.id, directory, path: path, name: name)
    }

    /// The resource directory's steps in the source's commit when it is not the one `plan`'s
    /// record was read in (`SearchPlan.resourceBase(in:)`, read once per transaction); nil in
    /// that commit, where the lookup passes `plan.resourceBase` itself.
    mutating func laterResourceBase(of plan: SearchPlan) throws -> SearchBase? {
        guard transaction != plan.recordTransaction else { return nil }
        if let kept = plan.keptResourceBase(transaction: transaction) { return kept }
        return try plan.resourceBase(in: try reading())
    }

    /// The version-0 root fallback's steps (`SearchPlan.rootBase(in:)`, or for a lookup in a
    /// subdirectory `markedRootBase`); nil when the bundle has no fallback.
    mutating func rootBase(of plan: SearchPlan, subdirectory: String?) throws -> SearchBase? {
        guard plan.hasRootFallback else { return nil }
        if subdirectory != nil, let marked = plan.markedRootBase(transaction: transaction) { return marked }
        if snapshot == nil, let kept = plan.keptRootBase(transaction: transaction) { return kept }
        return try plan.rootBase(in: try reading())
    }
}
