// The timing harness of docs/performance.md, "Strings tables": every `.strings` table under a
// folder, read into memory, then parsed by CoreFoundation alone
// (`StringsTableReader.propertyListEntries`) and by the reader as the scanner uses it
// (`StringsTableReader.entries`: the narrow parser, CF for what it leaves), in turn, round after
// round, so a load that comes and goes hits both alike. Prints the median and fastest round.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: strings-parse-bench CORPUS [ROUNDS]\n".utf8))
    exit(2)
}
let corpus = arguments[1]
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 9 : 9
var tables: [[UInt8]] = []
if let walk = FileManager.default.enumerator(atPath: corpus) {
    while let relative = walk.nextObject() as? String {
        if relative.hasSuffix(".strings"), let data = FileManager.default.contents(atPath: corpus + "/" + relative) {
            tables.append(Array(data))
        }
    }
}
let bytes = tables.reduce(0) { $0 + $1.count }
let decided = tables.filter { OpenStepStringsParser.entries(from: $0) != nil }.count
print("\(tables.count) tables, \(bytes) bytes; the narrow parser decides \(decided), CF the rest")

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// The tables the narrow parser decides, and all of them.
let narrowTables = tables.filter { OpenStepStringsParser.entries(from: $0) != nil }
var times: [String: [Double]] = [:]
var entries = 0
// CF's complaints about the few tables it cannot parse would be printed every round.
let savedError = dup(STDERR_FILENO)
let null = open("/dev/null", O_WRONLY)
dup2(null, STDERR_FILENO)
for _ in 0..<rounds {
    times["1 CF, the narrow parser's tables", default: []].append(seconds {
        for t in narrowTables { entries &+= StringsTableReader.propertyListEntries(from: t, dictionaryFile: false).count }
    })
    times["2 narrow parser, its tables", default: []].append(seconds {
        for t in narrowTables { entries &+= OpenStepStringsParser.entries(from: t)?.count ?? 0 }
    })
    times["3 CF, every table", default: []].append(seconds {
        for t in tables { entries &+= StringsTableReader.propertyListEntries(from: t, dictionaryFile: false).count }
    })
    times["4 StringsTableReader.entries, every table", default: []].append(seconds {
        for t in tables { entries &+= StringsTableReader.entries(from: t, dictionaryFile: false).count }
    })
}
dup2(savedError, STDERR_FILENO)
var medians: [String: Double] = [:]
for (label, values) in times.sorted(by: { $0.key < $1.key }) {
    let sorted = values.sorted()
    medians[label] = sorted[sorted.count / 2]
    print(String(format: "%@: median %.1f ms, fastest %.1f ms", String(label.dropFirst(2)), sorted[sorted.count / 2] * 1000,
                 sorted[0] * 1000))
}
print(String(format: "CF / narrow on the same tables: %.1fx; CF / reader on every table: %.1fx (%d entries)",
             medians["1 CF, the narrow parser's tables"]! / medians["2 narrow parser, its tables"]!,
             medians["3 CF, every table"]! / medians["4 StringsTableReader.entries, every table"]!, entries))
