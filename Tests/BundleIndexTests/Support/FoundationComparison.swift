// Every lookup a bundle's own files suggest, asked of Foundation's `Bundle(path:)` and of the
// index (foundation-linux), for the tests of real layouts (Debian's split bundles, GNUstep
// library folders, swift-corelibs-foundation's freestanding and FHS bundles).
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

/// The differences between Foundation's answers and the index's for the bundle at `path`, one
/// line each; empty when they agree. Lookups come from the files under Foundation's resource
/// path, walked through symbolic links as the kernel follows them (at most `limit` files).
func foundationDifferences(bundleAt path: String, index: String, limit: Int = 2_000) throws -> [String] {
    guard let foundation = Bundle(path: path) else {
        let indexed = try IndexReader(path: index).bundle(atPath: path, context: .foundationLinux)
        return indexed == nil ? [] : ["Foundation opens no bundle at \(path), the index has one"]
    }
    guard let mine = try IndexReader(path: index).bundle(atPath: path, context: .foundationLinux) else {
        return ["\(path) is not in the index"]
    }
    var out: [String] = []
    func check<T: Equatable>(_ what: String, _ theirs: T, _ ours: T) {
        if theirs != ours { out.append("\(what): Foundation \(theirs), index \(ours)") }
    }
    check("resourcePath", foundation.resourcePath ?? "", mine.resourcePath)
    // In readdir order, as Foundation lists the lproj folders (L-readdir-order), and so the
    // first of them, which is preferredLocalizations on Linux.
    check("localizations", foundation.localizations, mine.localizations)
    check("preferredLocalizations", foundation.preferredLocalizations, mine.preferredLocalizations)
    check("bundleIdentifier", foundation.bundleIdentifier, mine.bundleIdentifier)
    let root = foundation.resourcePath ?? path
    var types: Set<String> = [""]
    for file in filesBelow(root, limit: limit).map(FileLookup.init) {
        let (base, type, subdirectory) = (file.base, file.type, file.subdirectory)
        types.insert(type)
        check("path(\(base), \(type), \(subdirectory ?? "nil"))",
              foundation.path(forResource: base, ofType: type, inDirectory: subdirectory),
              try mine.path(forResource: base, ofType: type, inDirectory: subdirectory))
        if let lproj = file.lproj {
            check("path(\(base), \(type), nil, \(lproj))",
                  foundation.path(forResource: base, ofType: type, inDirectory: nil, forLocalization: lproj),
                  try mine.path(forResource: base, ofType: type, inDirectory: nil, forLocalization: lproj))
            check("path(\(base), \(type))", foundation.path(forResource: base, ofType: type),
                  try mine.path(forResource: base, ofType: type))
        }
    }
    for type in types.sorted() {
        check("paths(\(type))", foundation.paths(forResourcesOfType: type, inDirectory: nil).sorted(),
              try mine.paths(forResourcesOfType: type, inDirectory: nil).sorted())
    }
    return out
}

/// The lookup a bundle's own file suggests: its name without the extension, the extension, the
/// folder it lies in (nil at the top of the resources) and, for a file directly in `L.lproj`, L.
struct FileLookup {
    let base: String
    let type: String
    let subdirectory: String?
    let lproj: String?

    init(_ file: String) {
        let directory = (file as NSString).deletingLastPathComponent
        let name = (file as NSString).lastPathComponent
        type = (name as NSString).pathExtension
        base = type.isEmpty ? name : (name as NSString).deletingPathExtension
        subdirectory = directory.isEmpty ? nil : directory
        lproj = directory.hasSuffix(".lproj") && !directory.contains("/") ? String(directory.dropLast(6)) : nil
    }
}

/// Files (and links to files) below `root`, relative to it; links to directories are followed
/// unless they lead back up the walk.
func filesBelow(_ root: String, limit: Int) -> [String] {
    var out: [String] = []
    var stack: [(String, [String])] = [("", [])]
    while let (relative, above) = stack.popLast(), out.count < limit {
        let absolute = relative.isEmpty ? root : root + "/" + relative
        guard let real = FileSystem.realPath(absolute), !above.contains(where: { real == $0 || $0.hasPrefix(real + "/") }),
              let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else { continue }
        for name in names.sorted() {
            let child = relative.isEmpty ? name : relative + "/" + name
            if FileSystem.isDirectory(root + "/" + child) {
                stack.append((child, above + [real]))
            } else {
                out.append(child)
            }
        }
    }
    return out
}
