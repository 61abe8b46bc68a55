/// Where `DirectLookup` reads what a directory holds for a name: a snapshot of the index (the
/// bundle's `DirectoryTables` first, then the directory's record), or the tables alone
/// (`KeptDirectories`), which answer a lookup without beginning a read transaction when every
/// directory it reads is kept for the newest commit.
protocol DirectorySource {
    /// What directory `directory`, spelled `path`, of `plan`'s bundle holds for `name`.
    func candidates(_ directory: DirectoryKey, plan: SearchPlan, path: UnsafeRawBufferPointer,
                    name: UnsafeRawBufferPointer) throws -> NameCandidates
    /// The version-0 root fallback's steps (`SearchPlan.rootBase(in:)`); nil when the bundle has
    /// no fallback.
    func rootBase(of plan: SearchPlan) throws -> SearchBase?
}

extension IndexSnapshot: DirectorySource {
    func candidates(_ directory: DirectoryKey, plan: SearchPlan, path: UnsafeRawBufferPointer,
                    name: UnsafeRawBufferPointer) throws -> NameCandidates {
        if let kept = try plan.directories.candidates(bundle: plan.record.id, directory, path: path, name: name, in: self) {
            return kept
        }
        return try nameCandidates(bundle: plan.record.id, directory, path: path, name: name)
    }

    func rootBase(of plan: SearchPlan) throws -> SearchBase? { try plan.rootBase(in: self) }
}

/// What the bundle keeps in memory for commit `transaction` and nothing more: the tables of
/// `DirectoryTables` and the root fallback's steps. A directory without a kept table (read
/// once so far, read from the index each time, or not read at all) throws `NotKept`, and the
/// lookup starts again in a snapshot of the index. Nothing is noted here: the snapshot's read
/// notes the directory as a first ask always has.
struct KeptDirectories: DirectorySource {
    let transaction: UInt64

    /// A class, thrown as the one instance: throwing a struct would allocate its box each time.
    final class NotKept: Error, Sendable {
        static let shared = NotKept()
    }

    func candidates(_ directory: DirectoryKey, plan: SearchPlan, path: UnsafeRawBufferPointer,
                    name: UnsafeRawBufferPointer) throws -> NameCandidates {
        guard let kept = plan.directories.kept(directory, path: path, name: name, transaction: transaction) else {
            throw NotKept.shared
        }
        return kept
    }

    func rootBase(of plan: SearchPlan) throws -> SearchBase? {
        guard plan.hasRootFallback else { return nil }
        guard let kept = plan.keptRootBase(transaction: transaction) else { throw NotKept.shared }
        return kept
    }
}
