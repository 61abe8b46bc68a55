import ArgumentParser
import BundleIdxCommon
import BundleIndex

import Glibc

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Scan bundle trees and write them into the index.",
        discussion: """
        Walks every ROOT, finds every bundle in it (nested ones too) and writes them to the \
        index in one transaction: readers see the previous index until the build commits, and \
        a build that is interrupted leaves the previous index as it was. Bundles indexed \
        earlier from other roots are kept.

        A folder the scan does not take for a bundle (no bundle extension, no Info.plist \
        where CF looks for one) can be named with --bundle: it is indexed as a bundle, like \
        Foundation's Bundle(path:) opens any folder, and the index remembers it, so later \
        builds and bundleidx watch keep it.

        Building again over an existing index reads again only the bundles whose directories, \
        Info.plist or strings files changed since (their status-change times, ctime), keeps the others \
        and removes bundles that are gone; --full reads every bundle again. The summary says \
        how many bundles were read, unchanged and removed.

        Example:
          bundleidx build /usr/lib/GNUstep Examples --index /tmp/bundles.idx
          bundleidx build --bundle /opt/MyLib/Versions/2 --index /tmp/bundles.idx
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: ArgumentHelp("Directories to scan (bundles themselves or folders holding them).", valueName: "root"))
    var roots: [String] = []

    @Option(name: .customLong("bundle"), help: ArgumentHelp("A folder to index as a bundle whatever it holds (repeatable); kept by later builds.", valueName: "dir"))
    var bundles: [String] = []

    @Flag(name: .long, help: "Print every warning instead of the first few.")
    var verbose = false

    @Flag(name: .long, help: "Read every bundle again, even those whose stamps (ctime) show no change.")
    var full = false

    func validate() throws {
        if roots.isEmpty && bundles.isEmpty { throw ValidationError("give at least one ROOT directory to scan (or a --bundle DIR)") }
    }

    func run() throws {
        OpenFileLimit.raiseToHard()
        let showProgress = stderrIsTerminal
        var lastPrint = 0.0
        let started = Self.now()
        let summary: IndexBuilder.Summary
        installCrashGuard(options.resolvedPath)
        do {
            summary = try IndexBuilder.build(roots: roots, bundles: bundles, indexPath: options.resolvedPath,
                                             full: full) { bundles, resources in
                guard showProgress else { return }
                let t = Self.now()
                guard t - lastPrint > 0.2 else { return }
                lastPrint = t
                let rate = Double(resources) / max(t - started, 0.001)
                writeStderr("\r\u{1B}[Kbundles \(bundles)  resources \(resources)  \(Int(rate)) resources/s")
            }
        } catch {
            if showProgress { writeStderr("\r\u{1B}[K") }
            throw ExitStatus.reporting(error)
        }
        if showProgress { writeStderr("\r\u{1B}[K") }
        if let replaced = summary.replacedIndex {
            printWarning("the index at \(options.resolvedPath) could not be used (\(replaced)); this build replaced "
                         + "it and holds only the roots given now")
        }
        let shown = verbose ? summary.warnings : Array(summary.warnings.prefix(5))
        for w in shown { printWarning(w) }
        if summary.warnings.count > shown.count {
            printWarning("\(summary.warnings.count - shown.count) more warnings (use --verbose to see them)")
        }
        if let first = summary.keptUnreadable.first {
            let others = summary.keptUnreadable.count > 1 ? " and \(summary.keptUnreadable.count - 1) more" : ""
            printWarning("\(first)\(others) could not be read in full; the index keeps what it held for them "
                         + "(make them readable and build again)")
        }
        if summary.unreadableDirectories > 0 {
            printWarning("\(summary.unreadableDirectories) unreadable directories were skipped")
        }
        if summary.skippedNames > 0 {
            printWarning("\(summary.skippedNames) file names that are not valid UTF-8 were skipped")
        }
        print("indexed \(summary.bundles) bundles, \(summary.resources) resources (read \(summary.bundlesRead), "
              + "unchanged \(summary.bundlesUnchanged), removed \(summary.bundlesRemoved)) in "
              + "\(fixed(summary.seconds, 2)) s; index \(HumanUnits.byteCount(summary.indexBytes)) at \(options.resolvedPath)")
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
