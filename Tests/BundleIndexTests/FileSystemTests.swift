import Foundation
import Glibc
import Testing
@testable import BundleIndexCore

@Suite("File system questions")
struct FileSystemTests {
    @Test("a link resolved from its folder's real path answers as realpath(3), through /proc and link by link, on random trees of links")
    func realPathOfLinks() throws {
        let root = makeTempDirectory(prefix: "realpath")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var generator = SeededRandom(state: 11)
        // Folders three deep, a few files, and links among them: relative ones that climb
        // (`../../x`), absolute ones, links to links, to files, to nothing, loops, `.` and `..`
        // after a file, doubled slashes.
        var folders = [root]
        for _ in 0..<40 {
            let parent = folders.randomElement(using: &generator)!
            let folder = parent + "/d\(folders.count)"
            if parent.split(separator: "/").count < root.split(separator: "/").count + 3, mkdir(folder, 0o755) == 0 {
                folders.append(folder)
            }
        }
        var files: [String] = []
        for i in 0..<10 {
            let file = folders.randomElement(using: &generator)! + "/f\(i)"
            FileManager.default.createFile(atPath: file, contents: Data())
            files.append(file)
        }
        func relative(from folder: String, to target: String) -> String {
            let from = folder.split(separator: "/"), to = target.split(separator: "/")
            var common = 0
            while common < min(from.count, to.count) && from[common] == to[common] { common += 1 }
            return (Array(repeating: "..", count: from.count - common) + to[common...].map(String.init)).joined(separator: "/")
        }
        var links: [(folder: String, name: String)] = []
        for i in 0..<300 {
            let folder = folders.randomElement(using: &generator)!
            let name = "l\(i)"
            let pool = folders + files + links.map { $0.folder + "/" + $0.name } + [root + "/missing"]
            let target = pool.randomElement(using: &generator)!
            var text: String
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: text = target
            case 1: text = relative(from: folder, to: target) + "/."
            case 2: text = relative(from: folder, to: target) + "/../" + PathText.lastComponent(target)
            case 3: text = "./" + relative(from: folder, to: target).replacingOccurrences(of: "/", with: "//")
            case 4: text = relative(from: folder, to: target) + "/f0"
            default: text = relative(from: folder, to: target)
            }
            if text.isEmpty { text = "." }
            #expect(symlink(text, folder + "/" + name) == 0)
            links.append((folder, name))
        }
        // A loop, and a link to itself.
        #expect(symlink("loop-b", root + "/loop-a") == 0 && symlink("loop-a", root + "/loop-b") == 0)
        #expect(symlink("self", root + "/self") == 0)
        links += [(root, "loop-a"), (root, "self")]
        var resolved = 0
        for (folder, name) in links + files.map({ (String($0[..<$0.lastIndex(of: "/")!]), PathText.lastComponent($0)) }) {
            let expected = FileSystem.realPath(folder + "/" + name)
            #expect(FileSystem.realPath(of: name, inRealDirectory: folder) == expected, "\(folder)/\(name)")
            #expect(FileSystem.realPathPastDirectory(of: name, inRealDirectory: folder) == expected, "\(folder)/\(name), link by link")
            if expected != nil { resolved += 1 }
        }
        // Both kinds of answer were compared.
        #expect(resolved > 50 && resolved < links.count + files.count)
    }

    @Test("a link whose real path is over 1 KB long resolves as realpath(3)")
    func realPathOfADeepLink() throws {
        let root = makeTempDirectory(prefix: "realpath-deep")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Twelve folders of 100-byte names: a real path of more than 1 200 bytes.
        var folder = root
        for i in 0..<12 {
            folder += "/" + String(repeating: Character(String(i % 10)), count: 100)
            #expect(mkdir(folder, 0o755) == 0)
        }
        #expect(mkdir(folder + "/target", 0o755) == 0)
        #expect(symlink("target", folder + "/link") == 0)
        let expected = try #require(FileSystem.realPath(folder + "/link"))
        #expect(expected.utf8.count > 1_024)
        #expect(FileSystem.realPath(of: "link", inRealDirectory: folder) == expected)
    }
}

