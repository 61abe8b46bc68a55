// Examples/dropin/Foundation/main.swift with the one-line migration to IndexedFoundationBundle
// (and its import): the same questions, answered from the index when it holds the bundle.
//
//   dropin-indexed BUNDLE...
import BundleIndexFoundation
import Foundation

for path in CommandLine.arguments.dropFirst() {
    guard let bundle = IndexedFoundationBundle(path: path) else {
        print("\(path): no bundle")
        continue
    }
    print("\(path): identifier \(bundle.bundleIdentifier ?? "none"), resources at \(bundle.resourcePath ?? "none")")
    print("  localizations \(bundle.localizations.sorted()), preferred \(bundle.preferredLocalizations)")
    print("  name \(bundle.object(forInfoDictionaryKey: "CFBundleName").map { "\($0)" } ?? "none")")
    // Every file of the resource folder asked for by name and type, and the same name missed.
    var types: Set<String> = []
    let root = URL(fileURLWithPath: bundle.resourcePath ?? path)
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    for file in files.sorted(by: { $0.path < $1.path }) where file.pathExtension != "" {
        let name = file.deletingPathExtension().lastPathComponent, type = file.pathExtension
        types.insert(type)
        print("  \(name).\(type): \(bundle.path(forResource: name, ofType: type) ?? "nil")"
              + " | \(bundle.url(forResource: name, withExtension: type)?.path ?? "nil")"
              + " | \(bundle.path(forResource: name + "-missing", ofType: type) ?? "nil")")
    }
    for type in types.sorted() {
        print("  all .\(type): \(bundle.paths(forResourcesOfType: type, inDirectory: nil).sorted())")
    }
    print("  hello: \(bundle.localizedString(forKey: "hello", value: "(no hello)", table: nil))")
}
