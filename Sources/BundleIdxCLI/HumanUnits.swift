import Glibc

/// Numbers as people read them in plain output (`stats`, `build`); `--json` keeps the raw ones.
enum HumanUnits {
    /// `bytes` in binary units: "512 bytes", "15.2 MiB", "1.0 GiB".
    static func byteCount(_ bytes: Int) -> String {
        if bytes < 1024 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes)
        var unit = ""
        for next in ["KiB", "MiB", "GiB", "TiB", "PiB"] {
            value /= 1024
            unit = next
            if value < 1024 { break }
        }
        return "\(fixed(value, 1)) \(unit)"
    }

    /// A duration given in milliseconds: "850 ms", "12.40 s".
    static func duration(milliseconds: UInt64) -> String {
        milliseconds < 1000 ? "\(milliseconds) ms" : "\(fixed(Double(milliseconds) / 1000, 2)) s"
    }

    /// `seconds` since 1970 as local ISO 8601 time with its UTC offset, e.g.
    /// "2026-11-23T22:10:05+01:00" (the time zone is the process's, `TZ` or /etc/localtime).
    static func localISO8601(_ seconds: UInt64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return "\(seconds) s after 1970 (not a representable time)" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        let date = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // strftime's %z is "+0100"; ISO 8601's extended form, which the date part uses, is "+01:00".
        let offset = parts.tm_gmtoff
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return date + sign + twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
