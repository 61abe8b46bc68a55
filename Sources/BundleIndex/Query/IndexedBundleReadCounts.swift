// How many index records a lookup reads: diagnostics for the read-bound tests and the
// benchmarks (the physical floor of a lookup is that many raw key reads).

extension IndexedBundle {
    /// How many index records `path(forResource:ofType:inDirectory:)` reads for this query when
    /// no directory it reads was read before in the transaction — a diagnostic for benchmarks
    /// (the physical floor is this many raw key reads).
    @_spi(Engine)
    public func storeReadCount(forResource name: String?, ofType type: String?, inDirectory subpath: String? = nil) throws -> Int {
        try readsForLookup(name: name, type: type, subdirectory: subpath)
    }

    /// The same for `path(forResource:ofType:inDirectory:forLocalization:)`.
    @_spi(Engine)
    public func storeReadCount(forResource name: String?, ofType type: String?, inDirectory subpath: String?,
                               forLocalization localization: String?) throws -> Int {
        try readsForLookup(name: name, type: type, subdirectory: subpath, localization: .given(localization))
    }

    /// Store reads a single lookup performs (for the read-bound tests and benchmarks), by the
    /// route `path(forResource:…)` takes (see `single`), every directory read from the index:
    /// the bundle's `DirectoryTables`, which spare the reads of directories read before in the
    /// same transaction, are left aside.
    func readsForLookup(name: String?, type: String?, subdirectory: String?,
                        localization: ResourceLookup.Localization = .unspecified) throws -> Int {
        try reader.store.read { snapshot in
            var snap = snapshot
            snap.usesDirectoryTables = false
            let before = snap.reads
            switch localization {
            case .unspecified:
                _ = try single(in: snap, name, type, subdirectory, direct: { _ in () }, general: { _ in () })
            case .given(let l):
                _ = try localized(in: snap, name, type, subdirectory, l, direct: { _ in () }, general: { _ in () })
            }
            return snap.reads - before
        }
    }

    /// Store reads of a `paths(forResourcesOfType:)` lookup.
    func readsForListing(type: String?, subdirectory: String?) throws -> Int {
        try reader.store.read { snap in
            let before = snap.reads
            _ = try lookup(snap).array(type: type, subdirectory: subdirectory, localization: .unspecified)
            return snap.reads - before
        }
    }
}
