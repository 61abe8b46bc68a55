/// The followed links' targets, each with the bundles linking to it, found by where they lie:
/// which targets hold a path (an event there changes the bundles linking to them) and which lie
/// in a folder (the folder went away, so did they). Going through every target for each event
/// made an `rm -rf` of 2 000 bundles that each link to a folder of their own cost the watcher
/// 1.1 s of CPU, and of their 2 000 targets 1.4 s (`perf`: `isSameOrInside` and its retains);
/// here each question walks the path's folders up, or reads one entry.
struct LinkTargetMap {
    /// Target → the bundles linking to it.
    private var linking: PathMap<PathSet> = [:]
    /// Folder → the targets strictly below it, for every folder above a target.
    private var targetsBelow: PathMap<PathSet> = [:]

    var isEmpty: Bool { linking.isEmpty }

    /// Whether some bundle links to `target`.
    func isLinked(_ target: String) -> Bool { linking[target] != nil }

    mutating func add(_ bundle: String, linkingTo target: String) {
        if linking[target] == nil {
            forEachFolder(above: target) { targetsBelow[$0, default: []].insert(target) }
        }
        linking[target, default: []].insert(bundle)
    }

    /// Removes `bundle` from those linking to `target`; true when no bundle links to it any more.
    @discardableResult
    mutating func remove(_ bundle: String, linkingTo target: String) -> Bool {
        linking[target]?.remove(bundle)
        guard linking[target]?.isEmpty == true else { return false }
        linking[target] = nil
        forEachFolder(above: target) { folder in
            targetsBelow[folder]?.remove(target)
            if targetsBelow[folder]?.isEmpty == true { targetsBelow[folder] = nil }
        }
        return true
    }

    mutating func removeAll() {
        linking.removeAll()
        targetsBelow.removeAll()
    }

    /// The bundles linking to `path` or to a folder holding it.
    func bundles(linkingTo path: String) -> PathSet {
        var out: PathSet = []
        if let bundles = linking[path] { out.formUnion(bundles) }
        forEachFolder(above: path) { folder in
            if let bundles = linking[folder] { out.formUnion(bundles) }
        }
        return out
    }

    /// The bundles linking to `folder` or to anything below it.
    func bundles(linkingAtOrBelow folder: String) -> PathSet {
        var out: PathSet = []
        if let bundles = linking[folder] { out.formUnion(bundles) }
        for target in targetsBelow[folder] ?? [] { out.formUnion(linking[target] ?? []) }
        return out
    }

    /// Whether `path` is a target or lies below one.
    func holds(_ path: String) -> Bool {
        if linking[path] != nil { return true }
        var found = false
        forEachFolder(above: path) { folder in found = found || linking[folder] != nil }
        return found
    }

    /// Calls `body` with each folder above the absolute `path`, nearest first, `/` last (none
    /// for `/` itself).
    private func forEachFolder(above path: String, _ body: (String) -> Void) {
        var p = path
        while p.utf8.count > 1 {
            p = PathText.parent(of: p)
            body(p)
        }
    }
}
