import Foundation
import Glibc

/// Parses Info.plist and InfoPlist.strings at build time as Foundation's parser does — which is
/// CoreFoundation's `CFPropertyListCreateWithData` on Linux, so XML, binary and OpenStep/.strings
/// text parse exactly as Foundation's Bundle would parse them (docs/search-pattern.md,
/// "Which Info.plist file is read" and "Localized Info dictionary"). OpenStep text goes through
/// `OpenStepStringsParser` first, which answers only where it is certain of CF's answer
/// (docs/scanning.md, "Reading Info.plist files").
enum PropertyListReader {
    enum Failure: Error, CustomStringConvertible {
        case unreadable
        case empty
        case malformed
        /// CF reads no property list: a `;` is missing on this line (`OpenStepStringsParser`).
        case missingSemicolon(line: Int)
        case notADictionary
        case tooLarge
        /// Neither CoreFoundation nor GNUstep's grammar reads the text (`GNUstepPropertyList`).
        case malformedGNUstep(GNUstepPropertyList.Failure)

        var description: String {
            switch self {
            case .malformedGNUstep(let why): return "is not a valid property list: \(why)"
            case .tooLarge: return "is larger than \(PropertyListReader.sizeLimit >> 20) MiB, bundleidx's limit for the files it parses; not read"
            case .unreadable: return "cannot be read (or is not a regular file)"
            case .empty: return "is empty"
            case .malformed: return "is not a valid property list"
            case .missingSemicolon(let line): return "is not a valid property list (a ';' is missing on line \(line))"
            case .notADictionary: return "is not a dictionary"
            }
        }
    }

    /// The largest Info.plist or InfoPlist.strings read. Real ones are kilobytes (the largest of
    /// the real corpus: 4.6 KB, docs/real-corpus.md); every query of a bundle carries its Info
    /// dictionary, so a 50 MB one cost every query's memory and time.
    static let sizeLimit = 1 << 20

    /// The dictionary in the file at `path`, and the change time of the bytes read (from
    /// the `fstat` of the read itself, so a file changed after the read is not stamped with its
    /// new time; 0 when there is no such file). With `gnustep`, a text Foundation cannot parse
    /// is read with GNUstep's grammar, typed values included (`GNUstepPropertyList`): for
    /// `Info-gnustep.plist`, which only GNUstep's `NSBundle` reads.
    /// `size`: the bytes read. Throws only for a shortage of descriptors or memory
    /// (`FileSystem.isShortage`).
    static func stampedDictionary(atPath path: String, gnustep: Bool = false) throws -> StampedDictionary {
        let read = try FileSystem.readFileStamped(path, limit: sizeLimit)
        if read.oversized { return (.failure(.tooLarge), read.changeTime, 0) }
        guard let bytes = read.bytes else { return (.failure(.unreadable), read.changeTime, 0) }
        return (dictionary(from: bytes, gnustep: gnustep), read.changeTime, bytes.count)
    }

    typealias StampedDictionary = (result: Result<[String: PropertyListValue], Failure>, changeTime: UInt64, size: Int)

    static func dictionary(from bytes: [UInt8], gnustep: Bool = false) -> Result<[String: PropertyListValue], Failure> {
        guard !bytes.isEmpty else { return .failure(.empty) }
        // OpenStep text (GNUstep's Info-gnustep.plist) without CF, where the narrow parser is
        // certain of CF's answer; CF is not asked about a missing `;` either, which it would
        // report by writing a line of its own to standard error.
        switch OpenStepStringsParser.readPropertyList(bytes) {
        case .value(.dictionary(let d)): return .success(d)
        case .value: return .failure(.notADictionary)
        case .missingSemicolon(let line): return gnustep ? gnustepDictionary(bytes) : .failure(.missingSemicolon(line: line))
        case .leftToCF: break
        }
        switch CoreFoundationPropertyList.parse(bytes) {
        case .parsed(.dictionary(let d)?): return .success(d)
        case .parsed: return .failure(.notADictionary)
        case .unparsable: return gnustep ? gnustepDictionary(bytes) : .failure(.malformed)
        case .leftToFoundation: return foundationDictionary(from: bytes, gnustep: gnustep)
        }
    }

    /// `dictionary(from:gnustep:)` through Foundation's `PropertyListSerialization` and its
    /// bridged objects: for what `CoreFoundationPropertyList` leaves, and the tests' oracle.
    static func foundationDictionary(from bytes: [UInt8], gnustep: Bool = false) -> Result<[String: PropertyListValue], Failure> {
        guard !bytes.isEmpty else { return .failure(.empty) }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            return gnustep ? gnustepDictionary(bytes) : .failure(.malformed)
        }
        guard case .dictionary(let d)? = convert(object) else { return .failure(.notADictionary) }
        return .success(d)
    }

    /// A text CF cannot parse, read with GNUstep's grammar.
    private static func gnustepDictionary(_ bytes: [UInt8]) -> Result<[String: PropertyListValue], Failure> {
        do {
            guard case .dictionary(let d) = try GNUstepPropertyList.parse(bytes) else { return .failure(.notADictionary) }
            return .success(d)
        } catch {
            return .failure(.malformedGNUstep(error))
        }
    }

    /// Foundation's bridged plist objects → `PropertyListValue`. On Linux a CFBoolean arrives as
    /// an NSNumber whose objCType is "c", so the type code decides bool / real / integer.
    static func convert(_ v: Any, depth: Int = 0) -> PropertyListValue? {
        guard depth < 200 else { return nil }
        switch v {
        case let s as String: return .string(s)
        case let n as NSNumber:
            let t = String(cString: n.objCType)
            if t == "c" || t == "B" { return .bool(n.boolValue) }
            if t == "d" || t == "f" { return .real(n.doubleValue) }
            return .integer(n.int64Value)
        case let d as Data: return .data([UInt8](d))
        case let d as Date: return .date(d.timeIntervalSince1970)
        case let a as [Any]: return .array(a.compactMap { convert($0, depth: depth + 1) })
        case let d as [String: Any]:
            var out: [String: PropertyListValue] = [:]
            for (k, x) in d { if let c = convert(x, depth: depth + 1) { out[k] = c } }
            return .dictionary(out)
        default: return nil
        }
    }
}
