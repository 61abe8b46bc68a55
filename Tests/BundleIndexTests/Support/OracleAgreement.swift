// When does an answer of ours agree with the differential oracle (tools/oracle/oracle.swift)?
// Formats: docs/batch.md, "Paths relative to the bundle" and "Order, and how the oracle compares".
import Foundation

/// `expected` is the oracle's answer and `actual` ours, both as parsed by JSONSerialization.
///
/// They agree when they are equal JSON values (see `jsonEqual`), except:
/// - `{"anyOf":[x, y, ...]}` (a dictionary with the single key "anyOf"): Foundation's own answer
///   depends on readdir order (type-only `path` lookups, `preferred`), so any one element is right.
///   Our answer must be a plain element, never the anyOf object itself.
/// - `{"error": ...}` on both sides: the bundle does not exist / is not indexed (scenario S10,
///   Foundation's `Bundle(path:)` returned nil); the message text does not matter.
/// - `localizations`: the oracle sorted the run of names that came from lproj folders (readdir
///   order on the machine that ran it); ours keeps this machine's readdir order. They agree when
///   they are equal once the part between the longest common prefix and the longest common
///   suffix is sorted on our side (the oracle's is sorted already). RealSystemTests compares
///   the unsorted order with Foundation on the same files.
func oracleAgrees(expected: Any, actual: Any, op: String? = nil) -> Bool {
    if op == "localizations", let e = expected as? [String], let a = actual as? [String], e.count == a.count {
        var head = 0
        while head < e.count && e[head].unicodeScalars.elementsEqual(a[head].unicodeScalars) { head += 1 }
        var tail = 0
        while tail < e.count - head && e[e.count - 1 - tail].unicodeScalars.elementsEqual(a[a.count - 1 - tail].unicodeScalars) {
            tail += 1
        }
        let middle = a[head..<(a.count - tail)].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return jsonEqual(e, Array(a[..<head]) + middle + Array(a[(a.count - tail)...]))
    }
    if let e = expected as? [String: Any] {
        if e.count == 1, let alternatives = e["anyOf"] as? [Any] {
            return alternatives.contains { jsonEqual($0, actual) }
        }
        if e["error"] != nil, let a = actual as? [String: Any], a["error"] != nil {
            return true
        }
    }
    return jsonEqual(expected, actual)
}

/// Structural equality of two parsed JSON values.
/// - Strings compare by Unicode scalars, NOT with Swift's `==` (which uses canonical equivalence):
///   Foundation on Linux matches file names byte for byte, an NFC answer is not an NFD one
///   (scenario S12; docs/search-pattern.md, L-byte-names).
/// - Numbers compare by value (`3` == `3.0`); JSON booleans are a kind of their own (`true` != `1`).
/// - Objects: same key set, equal values; arrays: same length, equal elements in order.
/// - Wrapper objects of the oracle such as `{"$bool":true}`, `{"$real":2.5}` and `{"$data":...}`
///   are ordinary objects here (compared literally).
func jsonEqual(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case (is NSNull, is NSNull):
        return true
    case (is NSNull, _), (_, is NSNull):
        return false
    case let (x as String, y as String):
        return x.unicodeScalars.elementsEqual(y.unicodeScalars)
    case let (x as [Any], y as [Any]):
        return x.count == y.count && zip(x, y).allSatisfy { jsonEqual($0, $1) }
    case let (x as [String: Any], y as [String: Any]):
        // Keys of answer objects are fixed ASCII names, so Swift's key lookup is exact enough.
        return x.count == y.count && x.allSatisfy { key, value in
            y[key].map { jsonEqual(value, $0) } ?? false
        }
    default:
        guard let x = JSONScalar(a), let y = JSONScalar(b) else { return false }
        return x.agrees(with: y)
    }
}

/// A JSON number or boolean.
private enum JSONScalar {
    case bool(Bool)
    case int(Int64)
    case real(Double)

    init?(_ v: Any) {
        if let n = v as? NSNumber {
            // JSONSerialization yields a CFBoolean (objCType "c") for true/false; JSON text has no
            // char-sized numbers, so "c" always means a boolean here. (Checked before `as? Bool`,
            // which also succeeds for the numbers 0 and 1.)
            switch String(cString: n.objCType) {
            case "c", "B": self = .bool(n.boolValue)
            case "f", "d": self = .real(n.doubleValue)
            default: self = .int(n.int64Value)
            }
        } else if let b = v as? Bool {
            self = .bool(b)
        } else if let i = v as? Int {
            self = .int(Int64(i))
        } else if let d = v as? Double {
            self = .real(d)
        } else {
            return nil
        }
    }

    func agrees(with other: JSONScalar) -> Bool {
        switch (self, other) {
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.int(x), .real(y)), let (.real(y), .int(x)): return Double(x) == y
        case let (.real(x), .real(y)): return x == y
        default: return false          // a boolean never equals a number
        }
    }
}
