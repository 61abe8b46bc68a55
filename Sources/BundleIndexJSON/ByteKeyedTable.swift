import BundleIndexCore

import Glibc

/// A table keyed by byte strings, compared byte for byte: what the batch looks up once per line
/// (`LineAnswers`, the engine's opened bundles) costs one xxHash of the key, a probe or two and
/// one `memcmp`, and no `String` is made or hashed. (A `[String: V]` would also take two
/// spellings that Swift calls equal, "café" composed and decomposed, for one key; as paths they
/// are two folders.)
///
/// Keys live one after another in one byte array, entries in another: inserting allocates only
/// when those grow. It holds at most `capacity` entries and `byteCapacity` bytes of keys; a full
/// table starts again empty, as the library's answer caches do. A class: a struct of three
/// arrays read from a class's property was copied (three retains and releases) per look-up.
final class ByteKeyedTable<Value> {
    private struct Entry {
        let hash: UInt64
        let start: Int
        let count: Int
        let value: Value
    }

    private var entries: [Entry] = []
    private var keys: [UInt8] = []
    /// Open addressing with linear probing: an entry's index + 1, 0 for a free slot; at least
    /// twice `capacity` slots, a power of two, so a probe ends soon at a free one.
    private var slots: [Int32]
    /// At most this many entries, and this many bytes of keys.
    let capacity: Int, byteCapacity: Int

    init(capacity: Int, byteCapacity: Int) {
        var size = 16
        while size < 2 * capacity { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// The hash `value(for:hash:)` and `insert(_:for:hash:)` take: xxHash (XXH3) of the key.
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        Hashing.memory(UnsafeRawBufferPointer(key))
    }

    var count: Int { entries.count }

    /// The value stored for exactly the bytes `key` (whose hash is `hash`), or nil.
    func value(for key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Value? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let index = Int(slots[slot])
            if index == 0 { return nil }
            let entry = entries[index - 1]
            if entry.hash == hash && entry.count == key.count && sameBytes(at: entry.start, as: key) { return entry.value }
            slot = (slot + 1) & mask
        }
    }

    /// Stores `value` for `key`, which the table does not hold (callers insert after a miss).
    /// A table without room for it is emptied first.
    func insert(_ value: Value, for key: UnsafeBufferPointer<UInt8>, hash: UInt64) {
        if entries.count >= capacity || keys.count + key.count > byteCapacity { removeAll() }
        if entries.capacity == 0 {
            // Room for all at once: growing by doubling copied everything each time (a batch's
            // first pass spent ~5 % in those copies). Pages are touched only as they fill.
            entries.reserveCapacity(capacity)
            keys.reserveCapacity(byteCapacity)
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        entries.append(Entry(hash: hash, start: keys.count, count: key.count, value: value))
        keys.append(contentsOf: key)
        slots[slot] = Int32(entries.count)
    }

    /// Forgets every entry, keeping the storage.
    func removeAll() {
        guard !entries.isEmpty else { return }
        entries.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    private func sameBytes(at start: Int, as key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let wanted = key.baseAddress else { return true }   // the empty key
        return keys.withUnsafeBufferPointer { memcmp($0.baseAddress! + start, wanted, key.count) == 0 }
    }
}
