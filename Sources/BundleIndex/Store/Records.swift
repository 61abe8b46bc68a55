/// Encoded forms of the index's records (docs/index-format.md). Every value starts with a tag
/// byte so a value of the wrong kind, or a foreign file, is rejected instead of misread.
enum RecordTag: UInt8 {
    case bundle = 0x42     // 'B'
    case directory = 0x44  // 'D'
    case strings = 0x53    // 'S'
}

/// One bundle, stored in the `bundles` database under its absolute path.
package struct BundleRecord: Sendable, Equatable {
    package let id: UInt64
    package let path: String
    package let layout: BundleLayout
    package let infoPlists: [InfoPlistFile]
    /// lproj names of the resource directory in readdir order when scanned, as CF lists them
    /// (docs/search-pattern.md, L-readdir-order; format 8 — earlier formats kept byte order).
    package let lprojs: [String]
    package let warnings: [String]
    /// The root of the `build` that indexed this bundle.
    package let root: String
    /// Milliseconds since 1970 when the scan that wrote the record began, before it read any
    /// stamp (format 18; format 17: nanoseconds; before: seconds).
    package let scannedAt: UInt64

    /// `scannedAt` in nanoseconds, for `FileStamp.isSettled` (rounded down: never later than the
    /// scan began).
    package var scanBegan: UInt64 { scannedAt &* 1_000_000 }
    /// Change times, when scanned, of what no directory record stamps: the bundle root and the
    /// Info.plist folder when they lie outside the indexed tree, the parsed files (Info.plist,
    /// InfoPlist.strings), the folders links to files lead into and the folders that could not be
    /// listed (format 17), with the inode numbers of those that are folders (format 18). Each
    /// directory record holds its own folder's time (format 11; `allStamps(with:)` puts the two
    /// together).
    package let stamps: [FileStamp]
    /// Which directories have a record (format 16), so a lookup reads no folder the bundle
    /// lacks. Not decoded with the stamps only.
    let directoryMarks: DirectoryMarks

    /// Whether the directory marks are those a build writes for `directories` (the verifier's
    /// check: marks that lack a directory hide it from every lookup).
    package func hasDirectoryMarks(of directories: [ScannedDirectory]) -> Bool {
        directoryMarks == DirectoryMarks(of: directories)
    }

    /// Every stamp of the bundle as scanned: its own and those of its directory records.
    package func allStamps(with directories: [DirectoryRecord]) -> [FileStamp] {
        directories.map { FileStamp(path: $0.path, changeTime: $0.changeTime, inode: $0.inode) } + stamps
    }

    /// The identifiers its Info.plist files declare (`CFBundleIdentifier`, non-empty): the
    /// entries it has in the identifiers database, whose keys are their bytes (so two spellings
    /// of "é" are two identifiers here too).
    package var identifiers: Set<BytewiseString> { Self.identifiers(of: infoPlists) }

    /// An identifier longer than an index key (`IndexStore.maximumKeyBytes`) has no entry: the
    /// bundle is not found by it (its Info dictionary still holds it).
    static func identifiers(of infoPlists: [InfoPlistFile]) -> Set<BytewiseString> {
        Set(infoPlists.compactMap { $0.dictionary?["CFBundleIdentifier"]?.stringValue }
            .filter { !$0.isEmpty && $0.utf8.count <= IndexStore.maximumKeyBytes }
            .map(BytewiseString.init(text:)))
    }

    /// Decoded by `decode(forQueriesReading:)`: some Info.plist files and the stamps are left
    /// out, so it must never be written back.
    private(set) var isPartial = false

    func encode() -> [UInt8] {
        precondition(!isPartial, "a bundle record decoded for queries is never written back")
        var w = ByteWriter(capacity: 256)
        w.u8(RecordTag.bundle.rawValue)
        w.varint(id)
        // No path: it is the record's key.
        w.u8(layout.rawValue)
        w.varint(infoPlists.count)
        for p in infoPlists {
            w.string(p.name)
            if let d = p.dictionary {
                // Length first: a query that does not read this file steps over it in one move.
                var dictionary = ByteWriter(capacity: 256)
                PropertyListValue.dictionary(d).encode(into: &dictionary)
                w.u8(1)
                w.string(utf8: dictionary.bytes)
            } else {
                w.u8(0)
            }
        }
        w.strings(lprojs)
        w.strings(warnings)
        // The root is almost always the start of the path: then only its length (+ 1) is kept.
        if !root.isEmpty, path.utf8.starts(with: root.utf8) {
            w.varint(root.utf8.count + 1)
        } else {
            w.varint(0)
            w.string(root)
        }
        w.varint(scannedAt)
        directoryMarks.encode(into: &w)
        w.varint(stamps.count)
        for st in stamps {
            w.string(st.path)
            w.u64(st.changeTime)
            w.varint(st.inode)
        }
        return w.bytes
    }

    /// The record stored under `path` (its key: the value does not repeat it).
    static func decode(_ buffer: UnsafeRawBufferPointer, path: String) throws -> BundleRecord {
        try decode(buffer, path: path, infoPlistsWanted: nil)
    }

    /// What a query needs of the record: only the Info.plist files `wanted` names are decoded
    /// (the others are skipped, not built), and no stamps. Opening a bundle costs mostly this
    /// decoding; GNUstep bundles carry an Info-gnustep.plist the foundation-linux profile never
    /// reads (docs/performance.md, "Query shapes on real trees").
    static func decode(_ buffer: UnsafeRawBufferPointer, path: String,
                       forQueriesReading wanted: (String) -> Bool) throws -> BundleRecord {
        try withoutActuallyEscaping(wanted) { try decode(buffer, path: path, infoPlistsWanted: $0) }
    }

    /// What the incremental build compares with the disk: the stamps, without any Info.plist file.
    static func decode(_ buffer: UnsafeRawBufferPointer, path: String, forStampsOnly: ()) throws -> BundleRecord {
        try decode(buffer, path: path, infoPlistsWanted: { _ in false }, stampsOnly: true)
    }

    private static func decode(_ buffer: UnsafeRawBufferPointer, path: String, infoPlistsWanted wanted: ((String) -> Bool)?,
                               stampsOnly: Bool = false) throws -> BundleRecord {
        var r = ByteReader(buffer)
        guard try r.u8() == RecordTag.bundle.rawValue else { throw IndexFormatError(what: "bundle record tag") }
        let id = try r.varint()
        guard let layout = BundleLayout(rawValue: try r.u8()) else { throw IndexFormatError(what: "layout") }
        var plists: [InfoPlistFile] = []
        for _ in 0..<(try r.count()) {
            let name = try r.string()
            let parsed = try r.u8() == 1 ? try r.slice() : nil
            if let wanted, !wanted(name) { continue }
            var dict: [String: PropertyListValue]?
            if let parsed {
                var inner = ByteReader(parsed)
                guard case .dictionary(let d) = try PropertyListValue.decode(from: &inner), inner.isAtEnd else {
                    throw IndexFormatError(what: "Info.plist is not one dictionary")
                }
                dict = d
            }
            plists.append(InfoPlistFile(name: name, dictionary: dict))
        }
        let lprojs = try r.strings(), warnings = try r.strings()
        let root: String
        let rootLength = try r.varint()
        if rootLength == 0 {
            root = try r.string()
        } else if rootLength - 1 <= UInt64(path.utf8.count) {
            root = String(decoding: path.utf8.prefix(Int(rootLength - 1)), as: UTF8.self)
        } else {
            throw IndexFormatError(what: "bundle root longer than its path")
        }
        let scannedAt = try r.varint()
        let marks: DirectoryMarks
        if stampsOnly {
            try DirectoryMarks.skip(in: &r)
            marks = DirectoryMarks(hashes: [])
        } else {
            marks = try DirectoryMarks.decode(from: &r)
        }
        var stamps: [FileStamp] = []
        if stampsOnly || wanted == nil {
            for _ in 0..<(try r.count()) {
                stamps.append(FileStamp(path: try r.string(), changeTime: try r.u64(), inode: try r.varint()))
            }
        }
        var record = BundleRecord(id: id, path: path, layout: layout, infoPlists: plists, lprojs: lprojs,
                                  warnings: warnings, root: root, scannedAt: scannedAt, stamps: stamps, directoryMarks: marks)
        record.isPartial = wanted != nil
        return record
    }
}

/// A parsed `InfoPlist.strings` file.
enum StringsRecord {
    static func encode(directoryCheck: UInt32, name: String, dictionary: [String: PropertyListValue]?,
                       into w: inout ByteWriter) {
        w.u8(RecordTag.strings.rawValue)
        w.u32(directoryCheck)
        w.string(name)
        if let dictionary {
            w.u8(1)
            PropertyListValue.dictionary(dictionary).encode(into: &w)
        } else {
            w.u8(0)
        }
    }

    /// `.some(nil)`: the file exists but did not parse.
    static func decode(_ buffer: UnsafeRawBufferPointer, directoryCheck: UInt32, name: String) throws -> [String: PropertyListValue]?? {
        var r = ByteReader(buffer)
        guard try r.u8() == RecordTag.strings.rawValue else { throw IndexFormatError(what: "strings record tag") }
        guard try r.u32() == directoryCheck, try r.string() == name else { return .none }
        guard try r.u8() == 1 else { return .some(nil) }
        return .some(try PropertyListValue.decode(from: &r).dictionaryValue)
    }
}
