import Foundation

/// Nanoseconds per lookup of every cell, one sample per round.
///
/// A ratio of two numbers measured minutes apart measures what the machine did in between as much
/// as the code. Here every round times one block of each cell back to back, so both sides of a
/// ratio see the same neighbours within a fraction of a second; the order rotates and reverses
/// from round to round so that no cell always runs first or last.
///
/// A block makes whole cycles of its cell's lookups, so both sides of a ratio time the same
/// lookups in every round (a partial cycle would compare different queries on each side; with
/// Foundation's millisecond `paths` it made the 20k ratio swing between 10 and 27). Each timed
/// block is preceded by an untimed cycle of the same lookups, so that it starts from caches warmed
/// for its own data rather than by the cell before it (measured here, its effect on the ratios
/// was within the run-to-run spread).
struct InterleavedRun {
    let rounds: Int
    let blockNanoseconds: UInt64
    /// Cell name → ns per lookup in each round, in round order.
    private(set) var samples: [String: [Double]] = [:]

    init(rounds: Int, blockMilliseconds: Double) {
        self.rounds = rounds
        self.blockNanoseconds = UInt64(blockMilliseconds * 1_000_000)
    }

    mutating func measure(_ cells: [Cell]) throws {
        var checksum = 0
        // Cycles per block, from one timed cycle of each cell (after an untimed one).
        var cycles: [Int] = []
        for cell in cells {
            checksum &+= try cell.run(1)
            let start = now()
            checksum &+= try cell.run(1)
            let elapsed = max(now() - start, 1)
            cycles.append(max(1, Int(blockNanoseconds / elapsed)))
        }
        for round in 0..<rounds {
            var order = Array(cells.indices)
            let shift = (round * 7) % max(order.count, 1)
            order = Array(order[shift...] + order[..<shift])
            if round % 2 == 1 { order.reverse() }
            for i in order {
                checksum &+= try cells[i].run(1)
                let start = now()
                checksum &+= try cells[i].run(cycles[i])
                let elapsed = now() - start
                samples[cells[i].name, default: []].append(Double(elapsed) / Double(cycles[i] * cells[i].cycle))
            }
        }
        // Keeps the loops' results alive (they would otherwise be dead code).
        if checksum == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
    }

    private func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
