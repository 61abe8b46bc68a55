/// Events coalesced since the last applied batch: what to rescan, not what happened.
struct PendingChanges {
    /// Bundles whose indexed tree changed: rescanned (or removed when gone).
    var bundles: PathSet = []
    /// Directory → names of entries that appeared, disappeared or moved: new bundles may be
    /// there, or indexed ones may be gone.
    var children: PathMap<PathSet> = [:]
    /// `bundleidx sync` cookies seen; answered once the batch that contains them has committed
    /// (`ClaimedCookie`).
    var cookies: [String] = []
    /// Roots whose way may have changed (a mode, a retry), and those whose way surely did (an
    /// entry on it made, removed or renamed): `IndexWatcher.followRootWays`.
    var rootWays: PathSet = []
    var rootWaysMoved: PathSet = []

    /// `root`'s way may have changed; with `surely`, an entry on it was made, removed or renamed.
    mutating func rootWay(_ root: String, surely: Bool = false) {
        rootWays.insert(root)
        if surely { rootWaysMoved.insert(root) }
    }
    /// The kernel's queue overflowed: events were lost, every root is rescanned.
    var overflow = false
    /// Monotonic seconds of the first and the latest event of this batch.
    var firstEvent: Double?
    var lastEvent: Double?

    var isEmpty: Bool { bundles.isEmpty && children.isEmpty && cookies.isEmpty && rootWays.isEmpty && !overflow }

    mutating func touched(at now: Double) {
        if firstEvent == nil { firstEvent = now }
        lastEvent = now
    }

    mutating func child(_ name: String, of directory: String) {
        children[directory, default: []].insert(name)
    }
}
