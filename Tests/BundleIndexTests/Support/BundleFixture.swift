// Tiny bundle trees built in a temporary folder, indexed, and opened — the building block of
// the rule tests (one small bundle per rule).
import Foundation
@testable import BundleIndex
@testable import BundleIndexCore

/// XML Info.plist bytes for a dictionary of strings (and string arrays).
func infoPlist(_ entries: [String: Any]) -> String {
    let data = try! PropertyListSerialization.data(fromPropertyList: entries, format: .xml, options: 0)
    return String(decoding: data, as: UTF8.self)
}

final class BundleFixture {
    let root: String
    let indexPath: String
    private(set) var summary: IndexBuilder.Summary?

    /// `files`: relative path → content (a path ending in "/" makes a directory);
    /// `links`: relative path → symlink target.
    init(_ files: [String: String], links: [String: String] = [:]) throws {
        root = makeTempDirectory(prefix: "fixture")
        indexPath = root + "-index"
        try add(files, links: links)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: indexPath)
    }

    func add(_ files: [String: String], links: [String: String] = [:]) throws {
        let fm = FileManager.default
        for (rel, content) in files.sorted(by: { $0.key < $1.key }) {
            let path = root + "/" + rel
            if rel.hasSuffix("/") {
                try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
                continue
            }
            try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard fm.createFile(atPath: path, contents: Data(content.utf8)) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        for (rel, target) in links.sorted(by: { $0.key < $1.key }) {
            let path = root + "/" + rel
            try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: path, withDestinationPath: target)
        }
    }

    @discardableResult
    func build() throws -> IndexBuilder.Summary {
        let s = try IndexBuilder.build(roots: [root], indexPath: indexPath)
        summary = s
        return s
    }

    func reader() throws -> IndexReader { try IndexReader(path: indexPath) }

    /// Builds (if needed) and opens the bundle at `relative`.
    func bundle(_ relative: String, context: SearchContext = .foundationLinux) throws -> IndexedBundle {
        if summary == nil { try build() }
        guard let b = try reader().bundle(atPath: root + "/" + relative, context: context) else {
            throw FixtureError(message: "\(relative) is not indexed")
        }
        return b
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension IndexedBundle {
    /// The found path relative to the bundle root, as the oracle spells it.
    func rel(_ name: String?, _ type: String?, dir: String? = nil) throws -> String? {
        try resource(named: name, ofType: type, inDirectory: dir)?.relativePath
    }

    func rel(_ name: String?, _ type: String?, dir: String? = nil, loc: String?) throws -> String? {
        try resource(named: name, ofType: type, inDirectory: dir, forLocalization: loc)?.relativePath
    }

    func rels(_ type: String?, dir: String? = nil) throws -> [String] {
        try resources(ofType: type, inDirectory: dir).map(\.relativePath)
    }
}

/// The `bundleidx` executable built next to the test bundle.
let bundleidxBinary: String = testHelperBinary("bundleidx")

/// An executable of this package built beside the tests (the CLI, or a helper under Tests/).
func testHelperBinary(_ name: String) -> String {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/" + name,
        packageRoot + "/.build/debug/" + name,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
}
