// swift-tools-version:6.1
import PackageDescription

/// What Foundation's static module links (its autolink entries): BundleIndex is compiled against
/// the shared Foundation, whose entries name only libFoundation, so a static link needs the rest.
let staticFoundationLibraries = ["CoreFoundation", "_FoundationICU", "FoundationInternationalization",
                                 "_FoundationCShims", "FoundationEssentials", "_FoundationCollections",
                                 "swiftSynchronization", "swiftDispatch", "dispatch", "BlocksRuntime"].map { "-l" + $0 }

let package = Package(
    name: "bundleidx",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "BundleIndex", targets: ["BundleIndex"]),
        .library(name: "BundleIndexFoundation", targets: ["BundleIndexFoundation"]),
        .executable(name: "bundleidx", targets: ["bundleidx"]),
        .executable(name: "bundleidx-cli", targets: ["BundleIdxCLI"]),
        // The C ABI (include/bundleidx.h): libBundleIndexC.so here, installed by tools/install as
        // libbundleidx.so.0 (its soname) with the links a C linker and loader look for.
        .library(name: "BundleIndexC", type: .dynamic, targets: ["BundleIndexC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The watcher logs through swift-log (the CLI sends it to stderr).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Errno: named errno values and their messages in BundleIndexError.system.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // tools/docs: the DocC archives of the library products (a command plugin; no product links it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Debian's liblmdb-dev / libxxhash-dev, found through pkg-config; never vendored.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // Linux's getdents64, which the Glibc module leaves out (a header, no library).
        .systemLibrary(name: "CLinuxDirents"),
        // A thread-local count of the calls into LMDB in progress, for the crash guard: Swift has
        // no thread-local variable of its own (MappedReadGuard).
        .target(name: "CLMDBCalls"),
        // The library is two modules over one folder (docs/architecture.md, "Two modules"):
        // BundleIndexCore — the rooms a lookup needs, Support, Model, Store and Query — imports
        // no Foundation, so the fresh-process query program (`bundleidx-query`) links without
        // it; BundleIndex adds Scan, Build and Watch and re-exports the core, so users import
        // one module.
        .target(
            name: "BundleIndexCore",
            dependencies: ["CLMDB", "CLMDBCalls", "CXXHash", .product(name: "SystemPackage", package: "swift-system")],
            path: "Sources/BundleIndex",
            exclude: ["Scan", "Build", "Watch", "BundleIndex.swift", "BundleIndex.docc"],
            sources: ["Support", "Model", "Store", "Query"]
        ),
        .target(
            name: "BundleIndex",
            dependencies: ["BundleIndexCore", "CLMDB", "CXXHash", "CLinuxDirents", .product(name: "Logging", package: "swift-log"),
                           .product(name: "SystemPackage", package: "swift-system")],
            path: "Sources/BundleIndex",
            exclude: ["Support", "Model", "Store", "Query"],
            sources: ["Scan", "Build", "Watch", "BundleIndex.swift"]
        ),
        // The JSON faces of the library: `--json` output and the batch protocol (docs/architecture.md).
        // Like the core it imports no Foundation: the front program answers `--json` with it.
        .target(name: "BundleIndexJSON", dependencies: ["BundleIndexCore", .product(name: "SystemPackage", package: "swift-system")]),
        // `IndexedFoundationBundle`, a `Bundle` subclass answering from the index (docs/foundation-dropin.md).
        .target(name: "BundleIndexFoundation", dependencies: ["BundleIndex"]),
        // `@c` exports of include/bundleidx.h. Only the bundleidx_* functions leave the library
        // (a version script), so its own Swift runtime cannot clash with a host's; a release
        // build carries the Swift runtime inside. It links the core and the JSON faces only: no
        // Foundation or ICU.
        .target(
            name: "BundleIndexC",
            dependencies: ["BundleIndexCore", "BundleIndexJSON"],
            exclude: ["bundleidx.map"],
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "-soname=libbundleidx.so.0",
                              "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/BundleIndexC/bundleidx.map"]),
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
            ]
        ),
        // What both programs below share: exit statuses, error messages, plain output and the
        // plain query line. Like BundleIndexCore it imports no Foundation.
        .target(name: "BundleIdxCommon", dependencies: ["BundleIndexCore", "BundleIndexJSON"]),
        // `bundleidx`, the program users run: answers a plain `query` line itself and hands every
        // other command line to `bundleidx-cli` (exec). Linked fully statically in release
        // builds: no dynamic loader, no relocations at start-up, no Foundation or ICU pages —
        // a fresh lookup costs little more than starting a C program (docs/performance.md,
        // "Fresh process").
        .executableTarget(
            name: "bundleidx",
            dependencies: ["BundleIdxCommon", "BundleIndexCore", "BundleIndexJSON"],
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(configuration: .release))]
        ),
        // The full command line: every command, ArgumentParser's help and completions.
        .executableTarget(
            name: "BundleIdxCLI",
            dependencies: [
                "BundleIdxCommon",
                "BundleIndex",
                "BundleIndexJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A release CLI carries its Swift runtime and Foundation inside: it then skips loading
            // and symbol-binding ~15 shared libraries, which cost more than most commands
            // (docs/performance-notes.md, "Fresh-process start-up"). Debug builds (tests) stay
            // dynamic: faster links, same code.
            linkerSettings: [.unsafeFlags(["-static-stdlib"] + staticFoundationLibraries, .when(configuration: .release))]
        ),
        // Builds and stops just before committing, for the test that kills a build there (built
        // with everything else by `swift build`, like the CLI the tests run).
        .executableTarget(name: "BuildUntilCommit", dependencies: ["BundleIndex"], path: "Tests/BuildUntilCommit"),
        // Faults inside and outside an index's map, for the test of the CLI's crash guard.
        .executableTarget(name: "FaultProbe", dependencies: ["BundleIndex"], path: "Tests/FaultProbe"),
        // The drop-in's one-line migration, before and after (DropInProgramTests runs both).
        .executableTarget(name: "dropin-foundation", path: "Examples/dropin/Foundation"),
        .executableTarget(name: "dropin-indexed", dependencies: ["BundleIndexFoundation"], path: "Examples/dropin/Indexed"),
        .testTarget(
            name: "BundleIndexTests",
            dependencies: ["BundleIndex", "BundleIndexCore", "BundleIndexJSON", "BundleIndexFoundation",
                           .product(name: "Logging", package: "swift-log")]
        ),
    ]
)
