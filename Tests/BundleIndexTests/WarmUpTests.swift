// `IndexReader.warmUp` maps the whole index into the process (docs/performance.md, "A reader
// warmed up front"): after it, every page of the index in use is resident in the reader's map,
// and the answers are those of a reader that was not warmed.
import Foundation
import Testing
@_spi(Testing) @testable import BundleIndex
@testable import BundleIndexCore

@Suite("Warming a reader up")
struct WarmUpTests {
    /// Twelve bundles of 1 000 names each: an index of hundreds of KiB, far more than the
    /// 64 KiB the kernel maps around a single page fault.
    static let tree: [String: String] = {
        var files: [String: String] = [:]
        for b in 0..<12 {
            files["B\(b).app/Info.plist"] = infoPlist(["CFBundleIdentifier": "com.example.b\(b)"])
            for i in 0..<1_000 { files["B\(b).app/resource-\(i)-with-a-longer-name.txt"] = "" }
            files["B\(b).app/en.lproj/Localizable.strings"] = "\"k\" = \"v\";"
        }
        return files
    }()

    @Test("warmUp maps every page of the index in use, and later commits' pages when called again")
    func mapsTheWholeIndex() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let reader = try f.reader()
        let used = try reader.statistics().indexBytes
        #expect(used >= 256 << 10, "the fixture's index is \(used) bytes")
        let before = try Self.residentBytes(of: reader)
        #expect(before < used, "before warming, \(before) of \(used) bytes were mapped")

        #expect(try reader.warmUp() == used)
        #expect(try Self.residentBytes(of: reader) >= used)

        // Answers are unchanged: every bundle, a hit, a miss and a localized path.
        for b in 0..<12 {
            let bundle = try #require(try reader.bundle(atPath: f.root + "/B\(b).app", context: .foundationLinux))
            #expect(try bundle.path(forResource: "resource-999-with-a-longer-name", ofType: "txt")
                    == f.root + "/B\(b).app/resource-999-with-a-longer-name.txt")
            #expect(try bundle.path(forResource: "resource-1000-with-a-longer-name", ofType: "txt") == nil)
            #expect(try bundle.path(forResource: "Localizable", ofType: "strings", inDirectory: nil, forLocalization: "en")
                    == f.root + "/B\(b).app/en.lproj/Localizable.strings")
        }

        // A commit that adds pages: the next warm-up maps them too.
        try f.add(Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("B0.app/added-\($0)-with-a-longer-name.txt", "") }))
        try f.build()
        let grown = try reader.statistics().indexBytes
        #expect(grown > used)
        #expect(try reader.warmUp() == grown)
        #expect(try Self.residentBytes(of: reader) >= grown)
    }

    @Test("the mapping holding an address is found in /proc/self/maps")
    func mappingOfAnAddress() throws {
        let block = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { block.deallocate() }
        let address = UInt(bitPattern: block) + 4096
        let mapping = try #require(ProcessMappings.mapping(containing: address))
        #expect(mapping.start <= address && address < mapping.end)
        #expect(ProcessMappings.mapping(containing: 0) == nil)

        // A file mapped from its second page on: the mapping names that offset.
        let f = try BundleFixture(["F.app/blob": String(repeating: "x", count: 3 * 4096)])
        let fd = open(f.root + "/F.app/blob", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let mapped = try #require(mmap(nil, 2 * 4096, PROT_READ, MAP_SHARED, fd, 4096))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, 2 * 4096) }
        let file = try #require(ProcessMappings.mapping(containing: UInt(bitPattern: mapped) + 4096))
        #expect(file.start == UInt(bitPattern: mapped) && file.end == file.start + 2 * 4096 && file.fileOffset == 4096)
    }

    /// The resident bytes of the reader's map of `data.mdb` (`Rss` in /proc/self/smaps).
    static func residentBytes(of reader: IndexReader) throws -> Int {
        let inMap = try #require(try reader.store.read { try $0.addressInMap() })
        let start = try #require(ProcessMappings.mapping(containing: UInt(bitPattern: inMap))).start
        // Read to the end: the file's size reads as 0.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? file.close() }
        let smaps = String(decoding: try #require(try file.readToEnd()), as: UTF8.self)
        let header = String(start, radix: 16) + "-"
        var inBlock = false
        for line in smaps.split(separator: "\n") {
            // A mapping's line starts `start-end `; its fields' lines start with a name and ':'.
            let first = line.prefix(while: { $0 != " " })
            if first.contains("-") && first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                inBlock = line.hasPrefix(header)
            } else if inBlock, line.hasPrefix("Rss:") {
                let kib = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                return try #require(kib) * 1024
            }
        }
        Issue.record("no mapping at \(header) in /proc/self/smaps")
        return 0
    }
}
