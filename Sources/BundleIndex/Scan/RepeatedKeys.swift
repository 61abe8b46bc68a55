/// A strings table's keys made unique as CF's dictionary makes them: each key once, with the
/// last value written for it, at the place it was first written (`OpenStepStringsParser`, which
/// hashes each key as it reads it). Keys are compared as bytes, as CF compares them.
enum RepeatedKeys {
    typealias Span = StringsTable.Entries.Span

    /// The entries `spans` name in `text`, each key once with its last value (CFDictionarySetValue),
    /// at its first place. Keys are found again by their hashes in an open-addressed table
    /// (`HashPlaces`), and compared as bytes only when a hash comes again; the spans are copied
    /// only from the first repeated key on. Many real tables repeat keys (GNUstep's do), and a
    /// dictionary of every key by its bytes, which this replaced for them, was 11 % of the real
    /// corpus's strings reading.
    static func lastValues(text: [UInt8], spans: [Span], hashes: [UInt64]) -> StringsTable.Entries {
        var places = HashPlaces(capacity: hashes.count)
        // Made at the first repeated key: until then each entry's place is its index.
        var out: [Span]?
        for i in spans.indices {
            guard let place = places.insert(hashes[i], place: out?.count ?? i) else {
                out?.append(spans[i])
                continue
            }
            if out == nil { out = Array(spans[..<i]) }
            // Two keys of one FNV-1a hash: rare enough to compare every key by its bytes.
            guard text[out![place].key].elementsEqual(text[spans[i].key]) else {
                return StringsTable.Entries(text: text, spans: lastValuesByKey(text: text, spans: spans))
            }
            out![place] = Span(key: out![place].key, value: spans[i].value)
        }
        return StringsTable.Entries(text: text, spans: out ?? spans)
    }

    /// `lastValues` by a dictionary of the keys' bytes.
    private static func lastValuesByKey(text: [UInt8], spans: [Span]) -> [Span] {
        var out: [Span] = []
        var position: [ArraySlice<UInt8>: Int] = [:]
        for span in spans {
            let key = text[span.key]
            if let i = position[key] {
                out[i] = Span(key: out[i].key, value: span.value)
            } else {
                position[key] = out.count
                out.append(span)
            }
        }
        return out
    }

    /// Hashes and where each one's entry is, open-addressed (linear probing) in at least twice
    /// as many slots as hashes. Measured per hash over 30–1 000 random ones: 4–8 ns to insert,
    /// where a `Set<UInt64>` took 17–28 ns (and sorting them 17–62).
    private struct HashPlaces {
        private var hashes: [UInt64]
        /// -1: an empty slot.
        private var places: [Int32]
        private let mask: Int

        init(capacity: Int) {
            var size = 8
            while size < 2 * capacity { size <<= 1 }
            hashes = Array(repeating: 0, count: size)
            places = Array(repeating: -1, count: size)
            mask = size - 1
        }

        /// The place of `hash` when it is in the table, else nil, with `hash` put there at `place`.
        mutating func insert(_ hash: UInt64, place: Int) -> Int? {
            var i = Int(truncatingIfNeeded: hash) & mask
            while places[i] >= 0 {
                if hashes[i] == hash { return Int(places[i]) }
                i = (i + 1) & mask
            }
            hashes[i] = hash
            places[i] = Int32(truncatingIfNeeded: place)
            return nil
        }
    }

    /// FNV-1a of a key's UTF-8 bytes: equal keys hash alike.
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}
