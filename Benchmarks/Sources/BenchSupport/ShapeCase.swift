/// One lookup of the shape matrix, as `ShapeMatrix prepare` writes it (one JSON object per line)
/// and `ShapeMatrix measure` and `QueryProfile … first-ask` read it. `cell` names the matrix
/// cell the lookup belongs to.
public struct ShapeCase: Codable, Sendable {
    public enum Operation: String, Codable, Sendable {
        /// `path(forResource:ofType:inDirectory:)`, with `forLocalization:` when `localized`.
        case path
        /// `paths(forResourcesOfType:inDirectory:)`, with `forLocalization:` when `localized`.
        case paths
        /// `object(forInfoDictionaryKey: name)`.
        case info
        case localizations
        case preferredLocalizations
    }

    public var cell: String
    public var bundle: String
    public var operation: Operation
    public var name: String?
    public var type: String?
    public var directory: String?
    /// True: the lookup passes `forLocalization: localization` (which may be nil).
    public var localized: Bool
    public var localization: String?

    public init(cell: String, bundle: String, operation: Operation, name: String?, type: String?,
                directory: String?, localized: Bool, localization: String?) {
        self.cell = cell
        self.bundle = bundle
        self.operation = operation
        self.name = name
        self.type = type
        self.directory = directory
        self.localized = localized
        self.localization = localization
    }
}
