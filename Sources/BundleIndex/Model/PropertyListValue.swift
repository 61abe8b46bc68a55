/// A property-list value as stored in the index (Info.plist, InfoPlist.strings), independent of
/// Foundation so that queries need no plist parser.
///
/// ```swift
/// if case .string(let version)? = try app.object(forInfoDictionaryKey: "CFBundleShortVersionString") { … }
/// let name = app.infoDictionary["CFBundleName"]?.stringValue
/// ```
public indirect enum PropertyListValue: Equatable, Sendable {
    /// `<string>`.
    case string(String)
    /// `<integer>`.
    case integer(Int64)
    /// `<real>`.
    case real(Double)
    /// `<true/>`, `<false/>`.
    case bool(Bool)
    /// `<date>`, as seconds since 1970.
    case date(Double)
    /// `<data>`.
    case data([UInt8])
    /// `<array>`.
    case array([PropertyListValue])
    /// `<dict>`.
    case dictionary([String: PropertyListValue])

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The dictionary, when this is one.
    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// The array, when this is one.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}
