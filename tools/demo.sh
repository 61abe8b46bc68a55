#!/usr/bin/env bash
# The main job on the sample bundles: installs what is missing, builds bundleidx, indexes
# Examples/ into a scratch index and answers a few queries that show the search order.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh

swift build -c release --product bundleidx-cli 2>&1 | tail -n 1   # the full command line
swift build -c release --product bundleidx 2>&1 | tail -n 1       # the program users run
BIN="$(swift build -c release --show-bin-path)/bundleidx"
INDEX="${BUNDLEIDX_INDEX:-$PWD/.build/demo-index}"
rm -rf "$INDEX"

show() {
  printf '\n$ bundleidx %s\n' "$*"
  "$BIN" "$@" --index "$INDEX" || printf '(exit %d)\n' "$?"
}

show build Examples
show bundles
echo
echo "# Global resources first; inside a folder the most specific variant for the platform and device:"
show query Examples/Phone.app logo --type png
show query Examples/Phone.app icon --type png
show query Examples/Phone.app icon --type png --platform ios --device ipad
echo
echo "# Then the language folders your languages select, Base.lproj after the first:"
show localizations com.example.phone --lang en-GB
show query com.example.phone Localizable --type strings --lang en-GB
show string com.example.phone hello --lang en-GB
show query com.example.phone Main --type strings --lang en-GB
show query com.example.phone welcome --type txt --lang fr-CA
echo
echo "# Foundation on Linux searches only the development region (en) — the foundation-linux profile:"
show query com.example.phone welcome --type txt --profile foundation-linux
show query com.example.phone welcome --type txt --profile foundation-linux --localization fr
show string com.example.phone hello --profile foundation-linux
echo
echo "# macOS layout, a nested plug-in, a versioned framework (root fallback finds its binary link):"
show query com.example.notes MainMenu --type nib --lang de
show query com.example.notes.export formats --type json
show query com.example.render Render
show info com.example.phone CFBundleName --lang fr
show stats
