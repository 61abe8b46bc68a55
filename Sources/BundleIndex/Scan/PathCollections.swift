/// A set of file-system paths, compared and hashed by their bytes. A `Set<String>` takes
/// canonically equivalent paths ("Café" with "é" in one scalar and in two) for one, where the
/// file system holds two folders: keyed by `String`, a build kept a vanished bundle beside its
/// twin, scanned one folder's bundle from the other's listings, and the watcher's catch-up
/// trapped on the two keys (`EquivalentNamesTests`). Its API is `Set<String>`'s, as far as
/// the build and the watcher use it.
///
/// Here, in the module of the scan, the build and the watcher, which use it: as a generic type
/// of BundleIndexCore it was not specialised for them, and a build of the real corpus ×19 cost
/// 8–10 % more (`tools/build-bench --vs`).
struct PathSet: Sequence, ExpressibleByArrayLiteral {
    private var members: Set<BytewiseString>

    init() { members = [] }

    init(arrayLiteral paths: String...) { self.init(paths) }

    init<S: Sequence>(_ paths: S) where S.Element == String {
        members = Set(paths.lazy.map(BytewiseString.init(text:)))
    }

    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }

    func contains(_ path: String) -> Bool { members.contains(BytewiseString(text: path)) }

    @discardableResult
    mutating func insert(_ path: String) -> (inserted: Bool, memberAfterInsert: String) {
        let (inserted, member) = members.insert(BytewiseString(text: path))
        return (inserted, member.text)
    }

    @discardableResult
    mutating func remove(_ path: String) -> String? { members.remove(BytewiseString(text: path))?.text }

    mutating func formUnion<S: Sequence>(_ paths: S) where S.Element == String {
        for path in paths { members.insert(BytewiseString(text: path)) }
    }

    mutating func removeAll() { members.removeAll() }

    func makeIterator() -> LazyMapSequence<Set<BytewiseString>, String>.Iterator {
        members.lazy.map(\.text).makeIterator()
    }
}

/// A dictionary keyed by file-system paths, compared and hashed by their bytes (see `PathSet`).
/// Its API is `Dictionary<String, Value>`'s, as far as the build and the watcher use it.
struct PathMap<Value>: Sequence, ExpressibleByDictionaryLiteral {
    private var entries: [BytewiseString: Value]

    init() { entries = [:] }

    init(dictionaryLiteral elements: (String, Value)...) {
        entries = [:]
        for (path, value) in elements { entries[BytewiseString(text: path)] = value }
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var keys: [String] { entries.keys.map(\.text) }
    var values: Dictionary<BytewiseString, Value>.Values { entries.values }

    // Both subscripts yield the stored value for a change in place (`map[p]?.remove(x)`,
    // `map[p, default: []].insert(x)`): with a setter, the value was copied out, changed and
    // written back, so a set of 2 000 paths was copied for each one removed (`perf` of the
    // watcher as 2 000 link targets were deleted: `_NativeSet.copy`).
    subscript(path: String) -> Value? {
        get { entries[BytewiseString(text: path)] }
        _modify { yield &entries[BytewiseString(text: path)] }
    }

    subscript(path: String, default value: @autoclosure () -> Value) -> Value {
        get { entries[BytewiseString(text: path), default: value()] }
        _modify { yield &entries[BytewiseString(text: path), default: value()] }
    }

    @discardableResult
    mutating func removeValue(forKey path: String) -> Value? { entries.removeValue(forKey: BytewiseString(text: path)) }

    /// Sets the value of `path`; returns the one it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey path: String) -> Value? {
        entries.updateValue(value, forKey: BytewiseString(text: path))
    }

    mutating func removeAll() { entries.removeAll() }

    /// Adds `other`'s entries; for a path both hold, `combine` picks the value.
    mutating func merge(_ other: PathMap<Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try entries.merge(other.entries, uniquingKeysWith: combine)
    }

    func makeIterator() -> LazyMapSequence<[BytewiseString: Value], (key: String, value: Value)>.Iterator {
        entries.lazy.map { (key: $0.key.text, value: $0.value) }.makeIterator()
    }
}
