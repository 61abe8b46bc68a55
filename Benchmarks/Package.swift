// swift-tools-version:6.1
import PackageDescription

// A package of its own so that `swift test` in the main package never builds
// package-benchmark (its first release build takes minutes on small machines).
/// ../Package.swift links the release `bundleidx` with these flags; the baselines get the same.
let staticFoundation = ["CoreFoundation", "_FoundationICU", "FoundationInternationalization", "_FoundationCShims",
                        "FoundationEssentials", "_FoundationCollections", "swiftSynchronization", "swiftDispatch",
                        "dispatch", "BlocksRuntime"].map { "-l" + $0 }
let staticLikeBundleidx: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"] + staticFoundation, .when(configuration: .release))]

let package = Package(
    name: "bundleidx-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "bundleidx", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // LMDB again, for the physical floor: raw mdb_get on the same index files, bypassing
        // BundleIndex (whose CLMDB module is internal to the main package).
        .systemLibrary(name: "CLMDBFloor", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        // Fixtures, the lookups benchmarked and the raw floor, shared by the package-benchmark
        // suite and the interleaved ratio gate.
        .target(name: "BenchSupport", dependencies: ["CLMDBFloor", .product(name: "BundleIndex", package: "bundleidx")]),
        .executableTarget(
            name: "BundleLookup",
            dependencies: [
                "BenchSupport",
                .product(name: "BundleIndex", package: "bundleidx"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/BundleLookup",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Fresh-process baselines, built exactly like bundleidx: swift build -c release, with the
        // release CLI's static Swift runtime and Foundation (the linker settings of the
        // `bundleidx` target in ../Package.swift; keep the two lists alike).
        .executableTarget(name: "HelloWorld", linkerSettings: staticLikeBundleidx),
        .executableTarget(name: "FoundationOnly", linkerSettings: staticLikeBundleidx),
        // The same lookup as `bundleidx query`, answered by Foundation's Bundle in a fresh process:
        // the yardstick for the fresh query, linked fully statically like `bundleidx`.
        .executableTarget(name: "FoundationLookup",
                          linkerSettings: [.unsafeFlags(["-static-executable"] + staticFoundation + ["-lstdc++", "-lm"],
                                                         .when(configuration: .release))]),
        // The CI gate's ratio checks: both sides of every ratio alternated over repeated rounds
        // (tools/bench-gate; Benchmarks/ratio-floors).
        .executableTarget(name: "RatioGate", dependencies: ["BenchSupport", .product(name: "BundleIndex", package: "bundleidx")]),
        // Every query shape on real-shaped trees, first and repeat ask, next to Foundation
        // (tools/shape-bench).
        .executableTarget(name: "ShapeMatrix", dependencies: ["BenchSupport", .product(name: "BundleIndex", package: "bundleidx")]),
        // IndexedFoundationBundle next to Foundation's Bundle: localizedString (first ask of a
        // table, repeat), path lookups, object(forInfoDictionaryKey:), alternating in one run.
        .executableTarget(name: "DropInBench", dependencies: [.product(name: "BundleIndex", package: "bundleidx"),
                                                              .product(name: "BundleIndexFoundation", package: "bundleidx")]),
        // A bare lookup loop for perf / callgrind.
        .executableTarget(name: "QueryProfile", dependencies: ["BenchSupport", .product(name: "BundleIndex", package: "bundleidx")]),
    ]
)
