import BenchSupport
import BundleIndex
import Foundation

/// The three ways a caller names a resource.
enum NameShape: String, CaseIterable {
    /// `("logo", "png")`.
    case nameAndType = "name+type"
    /// `("logo.png", nil)`.
    case extensionInName = "name.ext"
    /// `("README", nil)`: a file without an extension.
    case nameOnly = "name"
}

/// Derives the matrix's lookups from what is on disk in each bundle and sorts them into cells by
/// Foundation's answer: where the answer lies (global folder, a language folder, a variant of the
/// asked-for name, nowhere) is the cell, so every cell holds lookups Foundation really answers
/// that way.
struct ShapePlanner {
    let perCell: Int
    /// How many lookups of the real mix are kept; every one by default. A cell of 200 first asks
    /// of ~1.5 µs is 0.3 ms of bundleidx's time per round, and one stall of the virtual CPU
    /// (0.1–1 ms, docs/performance.md) moved that round's mean by half.
    let mixLookups: Int
    var generator: SplitMix64

    init(perCell: Int, mixLookups: Int = .max, seed: UInt64) {
        self.perCell = perCell
        self.mixLookups = mixLookups
        self.generator = SplitMix64(seed: seed)
    }

    /// Candidate lookups of one bundle (not yet classified): every resource file and directory
    /// resource below its resource folder, in each name shape that can name it, asked through
    /// the search list and through `forLocalization:`, and a miss next to each.
    func candidates(bundle: Bundle, bundlePath: String) -> [ShapeCase] {
        guard let root = bundle.resourcePath else { return [] }
        let localizations = bundle.localizations.sorted()
        var out: [ShapeCase] = []
        for relative in resourceEntries(root: root) {
            var components = relative.split(separator: "/").map(String.init)
            var localization: String? = nil
            if let first = components.first, first.hasSuffix(".lproj") {
                localization = String(first.dropLast(6))
                components.removeFirst()
            }
            guard let file = components.popLast(), !file.hasPrefix(".") else { continue }
            let directory = components.isEmpty ? nil : components.joined(separator: "/")
            let dot = file.lastIndex(of: ".")
            let stem = dot.map { String(file[..<$0]) } ?? file
            let ext = dot.map { String(file[file.index(after: $0)...]) }
            var named: [(NameShape, String, String?)] = []
            if let ext, !stem.isEmpty {
                named.append((.nameAndType, stem, ext))
                named.append((.extensionInName, file, nil))
            } else if ext == nil {
                named.append((.nameOnly, file, nil))
            }
            // The language a forLocalization: lookup names: the file's own, else one the bundle has.
            let asked = localization ?? localizations.first ?? "en"
            for (shape, name, type) in named {
                for localized in [false, true] {
                    for missing in [false, true] {
                        let askedName = missing ? name + "_zz" : name
                        out.append(ShapeCase(cell: shape.rawValue, bundle: bundlePath, operation: .path, name: askedName,
                                             type: type, directory: directory, localized: localized,
                                             localization: localized ? asked : nil))
                    }
                }
            }
            if let ext {
                for localized in [false, true] {
                    out.append(ShapeCase(cell: "paths", bundle: bundlePath, operation: .paths, name: nil, type: ext,
                                         directory: directory, localized: localized,
                                         localization: localized ? asked : nil))
                }
            }
        }
        for key in (bundle.infoDictionary ?? [:]).keys.sorted().prefix(3) {
            out.append(ShapeCase(cell: "object(forInfoDictionaryKey:)", bundle: bundlePath, operation: .info, name: key,
                                 type: nil, directory: nil, localized: false, localization: nil))
        }
        out.append(ShapeCase(cell: "localizations", bundle: bundlePath, operation: .localizations, name: nil, type: nil,
                             directory: nil, localized: false, localization: nil))
        out.append(ShapeCase(cell: "preferredLocalizations", bundle: bundlePath, operation: .preferredLocalizations,
                             name: nil, type: nil, directory: nil, localized: false, localization: nil))
        return out
    }

    /// The cell of a path lookup from Foundation's answer to it.
    static func cell(of lookup: ShapeCase, answer: String?) -> String {
        let subdirectory = lookup.directory == nil ? "top" : "subdir"
        let route = lookup.localized ? "forLocalization" : "search list"
        let place: String
        if let answer {
            let asked = lookup.type.map { (lookup.name ?? "") + "." + $0 } ?? (lookup.name ?? "")
            if answer.split(separator: "/").contains(where: { $0.hasSuffix(".lproj") }) {
                place = "lproj hit"
            } else if (answer as NSString).lastPathComponent != asked {
                place = "variant hit"
            } else {
                place = "global hit"
            }
        } else {
            place = "miss"
        }
        return "path \(lookup.cell) · \(subdirectory) · \(route) · \(place)"
    }

    /// The cell of the lookups read from a tree's queries.jsonl (`--mix`).
    static let mixCell = "real mix"

    /// Up to `perCell` lookups of each cell, drawn evenly at random (seeded) from `all`, no
    /// lookup twice: a process asks each once before its repeat asks, and a second copy would
    /// be timed as a first ask while the answer cache (or Foundation's) answers it. Files of one
    /// name in several lproj folders derive the same search-list lookup once per folder: on
    /// gen-tree's real profile at 1k, 64 of the 99 top-folder lproj hits were such copies, and
    /// the cell's first-ask p50 was a repeat ask's.
    /// The real mix is drawn first, up to `mixLookups`, so that it keeps every distinct lookup
    /// of its file; the matrix's cells draw from what is left. (Drawn last, it lost to them the
    /// lookups they share, a fifth of gen-tree's at 1k, and was the rest of the mix, not the mix.)
    mutating func sample(_ all: [ShapeCase]) -> [ShapeCase] {
        var byCell: [String: [ShapeCase]] = [:]
        for lookup in all { byCell[lookup.cell, default: []].append(lookup) }
        var taken: Set<LookupIdentity> = []
        var out: [ShapeCase] = []
        // The mix first, then the cells by name.
        let cells = byCell.keys.sorted { $1 == Self.mixCell ? false : $0 == Self.mixCell || $0 < $1 }
        for cell in cells {
            var cases = byCell[cell]!
            cases.shuffle(using: &generator)
            let limit = cell == Self.mixCell ? mixLookups : perCell
            var kept = 0
            for lookup in cases where kept < limit && taken.insert(LookupIdentity(lookup)).inserted {
                out.append(lookup)
                kept += 1
            }
        }
        return out
    }

    /// What a lookup asks, whatever cell it is filed under.
    private struct LookupIdentity: Hashable {
        let bundle: String, operation: ShapeCase.Operation, name: String?, type: String?, directory: String?
        let localized: Bool, localization: String?

        init(_ c: ShapeCase) {
            (bundle, operation, name, type, directory) = (c.bundle, c.operation, c.name, c.type, c.directory)
            (localized, localization) = (c.localized, c.localization)
        }
    }

    /// Paths below `root` relative to it, depth-first in name order, at most four levels deep;
    /// directories count as entries too (interface files like `Main.gorm` are folders).
    private func resourceEntries(root: String) -> [String] {
        var out: [String] = []
        func walk(_ relative: String, depth: Int) {
            let path = relative.isEmpty ? root : root + "/" + relative
            guard depth < 4, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names.sorted() {
                let child = relative.isEmpty ? name : relative + "/" + name
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root + "/" + child, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    if !name.hasSuffix(".lproj") || !relative.isEmpty { out.append(child) }
                    walk(child, depth: depth + 1)
                } else {
                    out.append(child)
                }
            }
        }
        walk("", depth: 0)
        return out
    }
}
