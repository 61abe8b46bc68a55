import CoreFoundation

/// CF's property-list parser (`CFPropertyListCreateWithData`, what Foundation's
/// `PropertyListSerialization` calls on Linux) with its objects turned into `PropertyListValue`
/// directly, as `PropertyListReader.convert` turns Foundation's bridged objects: the same values
/// without bridging every string, number and collection through Foundation first, which was half
/// the cost of reading an Info.plist (docs/performance.md, "Build speed on real trees").
///
/// Where the bridged path might answer otherwise, this one does not answer: a string that is not
/// valid UTF-16 (Foundation's bridging repairs it its own way), a number of a type the bridge
/// maps in a way not mirrored here (CF's 128-bit integers), a dictionary key that is not a
/// string, or two keys equal as Swift strings (which one the bridge keeps is its own choice).
/// `PropertyListReaderTests` compares the two on real and generated property lists.
enum CoreFoundationPropertyList {
    enum Outcome {
        /// The value (nil where the bridged path drops it too: a type it does not convert).
        case parsed(PropertyListValue?)
        /// CF cannot parse the bytes.
        case unparsable
        /// The bridged path might answer otherwise: ask it.
        case leftToFoundation
    }

    static func parse(_ bytes: [UInt8]) -> Outcome {
        guard let data = CFDataCreate(kCFAllocatorSystemDefault, bytes, bytes.count) else { return .leftToFoundation }
        guard let object = CFPropertyListCreateWithData(kCFAllocatorSystemDefault, data, CFOptionFlags(0), nil, nil)?
                .takeRetainedValue() else { return .unparsable }
        do {
            return .parsed(try value(object, depth: 0))
        } catch {
            return .leftToFoundation
        }
    }

    /// The bridged path can answer otherwise.
    private struct Uncertain: Error {}

    /// `PropertyListReader.convert`'s rules: a CFBoolean, and a CFNumber holding a C `char`
    /// (NSNumber's type "c"), is a bool; a floating-point number is a real; other numbers are
    /// integers; nesting deeper than 200 is dropped.
    private static func value(_ object: CFTypeRef, depth: Int) throws(Uncertain) -> PropertyListValue? {
        guard depth < 200 else { return nil }
        let type = CFGetTypeID(object)
        if type == CFStringGetTypeID() {
            guard let s = StringsTableReader.validString(unsafeBitCast(object, to: CFString.self)) else { throw Uncertain() }
            return .string(s)
        }
        if type == CFBooleanGetTypeID() {
            return .bool(CFBooleanGetValue(unsafeBitCast(object, to: CFBoolean.self)))
        }
        if type == CFNumberGetTypeID() {
            return try number(unsafeBitCast(object, to: CFNumber.self))
        }
        if type == CFDateGetTypeID() {
            return .date(CFDateGetAbsoluteTime(unsafeBitCast(object, to: CFDate.self)) + kCFAbsoluteTimeIntervalSince1970)
        }
        if type == CFDataGetTypeID() {
            let data = unsafeBitCast(object, to: CFData.self)
            var bytes = [UInt8](repeating: 0, count: CFDataGetLength(data))
            CFDataGetBytes(data, CFRange(location: 0, length: bytes.count), &bytes)
            return .data(bytes)
        }
        if type == CFArrayGetTypeID() {
            let array = unsafeBitCast(object, to: CFArray.self)
            var out: [PropertyListValue] = []
            for i in 0..<CFArrayGetCount(array) {
                let element = unsafeBitCast(CFArrayGetValueAtIndex(array, i), to: CFTypeRef.self)
                if let v = try value(element, depth: depth + 1) { out.append(v) }
            }
            return .array(out)
        }
        if type == CFDictionaryGetTypeID() {
            return try dictionary(unsafeBitCast(object, to: CFDictionary.self), depth: depth)
        }
        return nil
    }

    private static func number(_ n: CFNumber) throws(Uncertain) -> PropertyListValue {
        switch CFNumberGetType(n) {
        case .sInt8Type, .charType:
            var v: Int64 = 0
            CFNumberGetValue(n, .sInt64Type, &v)
            return .bool(v != 0)
        case .float32Type, .float64Type, .floatType, .doubleType, .cgFloatType:
            var v: Double = 0
            CFNumberGetValue(n, .doubleType, &v)
            return .real(v)
        case .sInt16Type, .sInt32Type, .sInt64Type, .shortType, .intType, .longType, .longLongType, .cfIndexType, .nsIntegerType:
            var v: Int64 = 0
            CFNumberGetValue(n, .sInt64Type, &v)
            return .integer(v)
        default:
            throw Uncertain()
        }
    }

    private static func dictionary(_ d: CFDictionary, depth: Int) throws(Uncertain) -> PropertyListValue {
        let count = CFDictionaryGetCount(d)
        var keys = [UnsafeRawPointer?](repeating: nil, count: count)
        var values = [UnsafeRawPointer?](repeating: nil, count: count)
        CFDictionaryGetKeysAndValues(d, &keys, &values)
        var out: [String: PropertyListValue] = [:]
        for i in 0..<count {
            guard let k = keys[i], let v = values[i] else { continue }
            let key = unsafeBitCast(k, to: CFTypeRef.self)
            guard CFGetTypeID(key) == CFStringGetTypeID(),
                  let name = StringsTableReader.validString(unsafeBitCast(key, to: CFString.self)),
                  out[name] == nil else { throw Uncertain() }
            if let converted = try value(unsafeBitCast(v, to: CFTypeRef.self), depth: depth + 1) { out[name] = converted }
        }
        return .dictionary(out)
    }
}
