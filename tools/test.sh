#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, then runs the whole suite —
# rule tests, store/scanner/CLI tests and the conformance suite against Foundation's Bundle.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh
swift build --build-tests
swift test --skip-build
