// One module for users: `import BundleIndex` brings the lookup API of BundleIndexCore (the
// Foundation-free rooms Support, Model, Store, Query) with the scanner, builder and watcher here.
@_exported import BundleIndexCore
