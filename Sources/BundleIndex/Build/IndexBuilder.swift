#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a build did.
public struct BuildSummary: Sendable {
    public let roots: [String]
    public let bundles: Int
    public let resources: Int
    public let seconds: Double
    public let indexBytes: Int
    public let warnings: [String]
    public let unreadableDirectories: Int
    public let skippedNames: Int
}

/// A root given to `build` that is not a directory.
public struct BuildInputError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// scan → store: walks the roots and writes their bundles into the index in one write
/// transaction, replacing whatever the index held for the same roots. Readers see the old
/// index until the commit and the new one after it; a build that dies before committing
/// changes nothing.
public enum IndexBuilder {
    /// Test seam: when set, the build writes this file and waits just before committing, so a
    /// test can `kill -9` it with a full, uncommitted transaction.
    static let stallEnvironmentVariable = "BUNDLEIDX_TEST_STALL_BEFORE_COMMIT"

    public static func build(roots: [String], indexPath: String,
                             progress: ((_ bundles: Int, _ resources: Int) -> Void)? = nil) throws -> BuildSummary {
        let start = monotonicSeconds()
        let cwd = IndexReader.currentDirectory()
        var absolute: [String] = []
        for root in roots {
            let path = PathText.absolute(root, currentDirectory: cwd)
            guard DirectoryReader.isDirectory(path) else {
                var st = stat()
                throw BuildInputError(path: root, reason: stat(path, &st) == 0 ? "not a directory" : "no such directory")
            }
            absolute.append(path)
        }
        // A root inside another root is covered by it (and would otherwise be removed again).
        let unique = Set(absolute).filter { r in !absolute.contains { $0 != r && (r.hasPrefix($0 + "/") || $0 == "/") } }
            .sorted(by: byteOrder)

        let store = try IndexStore.openForWriting(path: indexPath)
        let now = UInt64(time(nil))
        var bundles = 0, resources = 0, unreadable = 0, skipped = 0, written = 0, writtenResources = 0
        var warnings: [String] = []
        try store.write { writer in
            for root in unique {
                for path in try writer.bundlePaths(under: root) { try writer.removeBundle(path: path) }
                // Bundles are scanned on a second thread, up to two ahead of the writing (ScanPipeline).
                let report = try ScanPipeline.run(root: root) { bundle in
                    try writer.addBundle(bundle, root: root, now: now)
                    written += 1
                    writtenResources += bundle.resourceCount
                    progress?(written, writtenResources)
                }
                bundles += report.bundles
                resources += report.resources
                unreadable += report.unreadableDirectories
                skipped += report.skippedNames
                warnings += report.warnings
                try writer.addRoot(root)
            }
            try writer.setMeta(.builtAt, u64: now)
            try writer.setMeta(.buildSeconds, u64: UInt64((monotonicSeconds() - start) * 1000))
            try writer.bumpGeneration()
            stallIfAsked()
        }
        return BuildSummary(roots: unique, bundles: bundles, resources: resources, seconds: monotonicSeconds() - start,
                            indexBytes: store.environment.usedBytes(), warnings: warnings,
                            unreadableDirectories: unreadable, skippedNames: skipped)
    }

    private static func stallIfAsked() {
        guard let marker = getenv(stallEnvironmentVariable).map({ String(cString: $0) }), !marker.isEmpty else { return }
        let fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd >= 0 { close(fd) }
        while true { sleep(60) }
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
