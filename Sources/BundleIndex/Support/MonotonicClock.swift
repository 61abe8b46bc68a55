import Glibc

/// Seconds on a clock that never jumps (`CLOCK_MONOTONIC`), for durations and deadlines.
package func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Nanoseconds since 1970 on the wall clock (`CLOCK_REALTIME`), the clock file times are
/// read from: when a scan began, for `FileStamp.isSettled`.
package func wallClockNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return FileSystem.nanoseconds(ts)
}
