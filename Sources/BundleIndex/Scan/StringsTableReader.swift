// CoreFoundation directly, not PropertyListSerialization: Foundation's result is a Swift
// dictionary, which merges keys that are equal only after Unicode normalisation ("é" written as
// one or as two scalars), where CF's dictionary — and so `Bundle.localizedString` — keeps both.
import CoreFoundation

/// Reads a `.strings` or `.stringsdict` file into the entries the index keeps for it, as CF's
/// own parser (`CFPropertyListCreateWithData`) reads it: OpenStep text with or without the outer
/// braces, XML and binary property lists, UTF-8 or UTF-16 with a byte-order mark — whatever
/// `CFBundleCopyLocalizedString` reads, read the same way (docs/foundation-dropin.md,
/// "Localized strings"). The common form, OpenStep text, goes through `OpenStepStringsParser`,
/// which gives CF's answer faster; whatever that parser is not certain of goes to CF.
enum StringsTableReader {
    /// The table at `relativePath` in the bundle, as `file(_:)` read it there (or at its real
    /// path: `FilesRead`); a file Foundation cannot read as a table adds a line to `warnings`
    /// (when the parser can tell why).
    static func table(bundlePath: String, relativePath: String, _ file: FileRead, warnings: inout [String]) -> StringsTable {
        let path = PathText.child(relativePath, of: bundlePath)
        if let line = file.missingSemicolon {
            warnings.append("\(path): not a strings table Foundation can read (a ';' is missing on line \(line)); "
                            + "lookups in it find no key, as in Foundation")
        }
        return StringsTable(path: relativePath, changeTime: file.changeTime, content: file.content)
    }

    /// What one table file holds, before a bundle names it.
    struct FileRead {
        let changeTime: UInt64
        let content: StringsTable.Content
        /// The line of the missing `;` that made CF read no table.
        let missingSemicolon: Int?
        /// The bytes read (what `FilesRead` counts against its bound).
        let size: Int
    }

    /// The file at `path` (`.stringsdict` read as a dictionary file), read and parsed. Throws
    /// only for a shortage of descriptors or memory (`FileSystem.isShortage`).
    static func file(_ path: String) throws -> FileRead {
        let file = try FileSystem.readFileStamped(path, limit: StringsTable.sizeLimit)
        if file.oversized { return FileRead(changeTime: file.changeTime, content: .notRead, missingSemicolon: nil, size: 0) }
        // An unreadable file is an empty table, as for Foundation (it gets no data either).
        let bytes = file.bytes ?? []
        let (entries, missingSemicolon) = reading(bytes, dictionaryFile: path.hasSuffix(".stringsdict"))
        return FileRead(changeTime: file.changeTime, content: .entries(entries), missingSemicolon: missingSemicolon,
                        size: bytes.count)
    }

    /// The string entries of a property-list dictionary in `bytes`; none when it does not parse.
    static func entries(from bytes: [UInt8], dictionaryFile: Bool) -> [StringsTable.Entry] {
        reading(bytes, dictionaryFile: dictionaryFile).entries.list
    }

    /// `entries(from:dictionaryFile:)`, and the line of the missing `;` that made CF read none.
    private static func reading(_ bytes: [UInt8], dictionaryFile: Bool) -> (entries: StringsTable.Entries, missingSemicolon: Int?) {
        guard !dictionaryFile else { return (StringsTable.Entries(propertyListEntries(from: bytes, dictionaryFile: true)), nil) }
        switch OpenStepStringsParser.read(bytes) {
        case .entries(let entries): return (entries, nil)
        case .missingSemicolon(let line): return (StringsTable.Entries(), line)
        case .leftToCF: return (StringsTable.Entries(propertyListEntries(from: bytes, dictionaryFile: false)), nil)
        }
    }

    /// `entries(from:dictionaryFile:)` through CF alone (the differential tests' oracle).
    static func propertyListEntries(from bytes: [UInt8], dictionaryFile: Bool) -> [StringsTable.Entry] {
        guard !bytes.isEmpty, let data = CFDataCreate(kCFAllocatorSystemDefault, bytes, bytes.count) else { return [] }
        guard let parsed = CFPropertyListCreateWithData(kCFAllocatorSystemDefault, data, CFOptionFlags(0), nil, nil)?
                .takeRetainedValue(), CFGetTypeID(parsed) == CFDictionaryGetTypeID() else { return [] }
        let dictionary = Unmanaged<CFDictionary>.fromOpaque(Unmanaged.passUnretained(parsed).toOpaque()).takeUnretainedValue()
        let count = CFDictionaryGetCount(dictionary)
        var keys = [UnsafeRawPointer?](repeating: nil, count: count)
        var values = [UnsafeRawPointer?](repeating: nil, count: count)
        CFDictionaryGetKeysAndValues(dictionary, &keys, &values)
        var out: [StringsTable.Entry] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            guard let k = keys[i], let v = values[i], let key = string(k) else { continue }
            if let value = string(v) {
                out.append(StringsTable.Entry(key: key, value: value))
            } else if dictionaryFile, let format = formatKey(of: v) {
                out.append(StringsTable.Entry(key: key, value: format))
            }
            // Other values (numbers, arrays, a dictionary in a .strings file): Foundation on
            // Linux crashes or answers garbage for them; the index answers as for a missing key.
        }
        return out
    }

    /// A CFString's UTF-16 code units as a String; nil for any other type.
    private static func string(_ object: UnsafeRawPointer) -> String? {
        guard CFGetTypeID(unsafeBitCast(object, to: CFTypeRef.self)) == CFStringGetTypeID() else { return nil }
        let s = unsafeBitCast(object, to: CFString.self)
        if let valid = validString(s) { return valid }
        let length = CFStringGetLength(s)
        var units = [UniChar](repeating: 0, count: length)
        CFStringGetCharacters(s, CFRange(location: 0, length: length), &units)
        return String(decoding: units, as: UTF16.self)
    }

    /// A CFString as a String when its code units are valid UTF-16; nil for lone surrogates.
    static func validString(_ s: CFString) -> String? {
        let length = CFStringGetLength(s)
        // CF's own UTF-8 conversion, kept when it is valid UTF-8 — then it is the one transcoding
        // of the code units. Decoding UTF-16 in Swift took a quarter of the scan of the real
        // corpus (its generic, repairing path); lone surrogates still take that path.
        let capacity = length * 3
        let fast = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var used: CFIndex = 0
            let converted = CFStringGetBytes(s, CFRange(location: 0, length: length), CFStringBuiltInEncodings.UTF8.rawValue,
                                             0, false, buffer.baseAddress, capacity, &used)
            count = converted == length ? used : 0
        }
        guard fast.count > 0 || length == 0 else { return nil }
        return String(validating: fast, as: UTF8.self)
    }

    /// A `.stringsdict` entry's `NSStringLocalizedFormatKey`: the string Apple's Foundation
    /// answers for a plural entry before formatting.
    private static func formatKey(of object: UnsafeRawPointer) -> String? {
        guard CFGetTypeID(unsafeBitCast(object, to: CFTypeRef.self)) == CFDictionaryGetTypeID() else { return nil }
        let entry = unsafeBitCast(object, to: CFDictionary.self)
        let name = Array("NSStringLocalizedFormatKey".utf16)
        let key = CFStringCreateWithCharacters(kCFAllocatorSystemDefault, name, name.count)
        guard let key, let value = CFDictionaryGetValue(entry, unsafeBitCast(key, to: UnsafeRawPointer.self)) else { return nil }
        return string(value)
    }
}
