#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, then runs the whole suite —
# rule tests, store/scanner/CLI tests and the conformance suite against Foundation's Bundle.
#
#   tools/test.sh           everything (CI)
#   tools/test.sh --quick   without the suites tagged .slow (oracle conformance, watcher, storm):
#                           the inner loop, under a minute once built
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ "${1:-}" == "--quick" ]]; then
    export BUNDLEIDX_QUICK_TESTS=1
elif [[ $# -gt 0 ]]; then
    echo "usage: tools/test.sh [--quick]" >&2
    exit 2
fi
bash tools/install-deps.sh
swift build --build-tests
swift test --skip-build
# The house rules: no reference leaves the repository, the rooms have no cycle, the library's
# public face stays small and documented (docs/architecture.md).
python3 tools/check-references
python3 tools/room-deps > /dev/null
python3 tools/api-surface
python3 tools/api-surface --module BundleIndexC --max-types 2
# docs/performance.md is tools/bench-report's table followed by docs/performance-notes.md; a
# section written into the first alone would be lost at the next report.
if ! diff -q <(sed -n '/^## Notes (written by hand/,$p' docs/performance.md) docs/performance-notes.md > /dev/null; then
    echo "docs/performance.md's notes differ from docs/performance-notes.md: write notes in the latter and copy them" >&2
    exit 1
fi
