// batch-codec-bench: the cost of one batch line's parse + emit, per candidate codec, without a
// lookup (docs/batch.md, "Why a narrow codec"). Built and run by tools/batch-codec-bench/run.
//
//   main FILE.jsonl [ROUNDS]   FILE: request lines (e.g. a gen-tree queries.jsonl)
//
// Each candidate parses every line into the fields the engine reads (bundle, op, name, type,
// dir, whether loc is present), then writes the answer a `path` lookup would give (the absolute
// path bundle/name.type as a JSON string plus "\n") into a reused byte buffer. Rounds alternate
// the candidates; the median ns per line of each is printed.
import Foundation

struct Fields {
    var bundle = "", op = "", name: String?, type: String?, dir: String?, hasLoc = false
}

/// The answer every candidate writes: a path built from the request, the size of a real one.
func answerPath(_ f: Fields) -> String {
    f.bundle + "/" + (f.name ?? "") + "." + (f.type ?? "")
}

protocol Candidate {
    var label: String { get }
    /// Parses and answers one line; returns false when the line was rejected.
    mutating func line(_ bytes: [UInt8], into out: inout [UInt8]) -> Bool
}

struct SerializationCandidate: Candidate {
    let label = "JSONSerialization"
    mutating func line(_ bytes: [UInt8], into out: inout [UInt8]) -> Bool {
        guard let o = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return false }
        var f = Fields()
        f.bundle = o["bundle"] as? String ?? ""
        f.op = o["op"] as? String ?? ""
        f.name = o["name"] as? String
        f.type = o["type"] as? String
        f.dir = o["dir"] as? String
        f.hasLoc = o.keys.contains("loc")
        guard let data = try? JSONSerialization.data(withJSONObject: answerPath(f),
                                                     options: [.fragmentsAllowed, .withoutEscapingSlashes])
        else { return false }
        out.append(contentsOf: data)
        out.append(10)
        return true
    }
}

struct CodableRequest: Decodable {
    var bundle: String
    var op: String
    var name: String?
    var type: String?
    var dir: String?
    var loc: String??
    enum CodingKeys: String, CodingKey { case bundle, op, name, type, dir, loc }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bundle = try c.decode(String.self, forKey: .bundle)
        op = try c.decode(String.self, forKey: .op)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        type = try c.decodeIfPresent(String.self, forKey: .type)
        dir = try c.decodeIfPresent(String.self, forKey: .dir)
        loc = c.contains(.loc) ? .some(try c.decodeIfPresent(String.self, forKey: .loc)) : .none
    }
}

struct CodableCandidate: Candidate {
    let label = "JSONDecoder/JSONEncoder"
    let decoder = JSONDecoder()
    let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.withoutEscapingSlashes]
        return e
    }()
    mutating func line(_ bytes: [UInt8], into out: inout [UInt8]) -> Bool {
        guard let r = try? decoder.decode(CodableRequest.self, from: Data(bytes)) else { return false }
        let f = Fields(bundle: r.bundle, op: r.op, name: r.name, type: r.type, dir: r.dir, hasLoc: r.loc != nil)
        guard let data = try? encoder.encode(answerPath(f)) else { return false }
        out.append(contentsOf: data)
        out.append(10)
        return true
    }
}

func nanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let text = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: batch-codec-bench FILE.jsonl [ROUNDS]\n".utf8))
    exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 7 : 7
let lines: [[UInt8]] = text.split(separator: 10).map { Array($0) }
// ONLY=substring keeps the candidates whose label contains it (for perf).
let only = ProcessInfo.processInfo.environment["ONLY"]
var candidates: [any Candidate] = makeCandidates().filter { only == nil || $0.label.contains(only!) }
var samples = Array(repeating: [Double](), count: candidates.count)
var out: [UInt8] = []
out.reserveCapacity(1 << 16)
var checksum = 0
for round in 0..<rounds {
    for k in candidates.indices {
        let c = (k + round) % candidates.count
        var rejected = 0
        let start = nanoseconds()
        for line in lines {
            if !candidates[c].line(line, into: &out) { rejected += 1 }
            checksum &+= out.count
            out.removeAll(keepingCapacity: true)
        }
        let elapsed = nanoseconds() - start
        if rejected > 0 { print("\(candidates[c].label): \(rejected) lines rejected") }
        samples[c].append(Double(elapsed) / Double(lines.count))
    }
}
print("\(lines.count) lines, \(rounds) rounds (checksum \(checksum))")
for (c, s) in zip(candidates, samples) {
    let sorted = s.sorted()
    let median = sorted[sorted.count / 2]
    print("\(c.label.padding(toLength: 26, withPad: " ", startingAt: 0)) \(String(format: "%7.0f", median)) ns/line (min \(String(format: "%.0f", sorted[0])))")
}
