#!/usr/bin/env bash
# The main job on the sample bundles: installs what is missing, builds bundleidx, indexes
# Examples/ into a scratch index and answers a few queries that show the search order.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/install-deps.sh

swift build -c release --product bundleidx 2>&1 | tail -n 1
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
echo "# Global resources first; device modifiers mean nothing on Linux, -linux variants win:"
show query Examples/Phone.app icon --type png
show query Examples/Phone.app logo --type png
echo
echo "# Then the development region's lproj (en), then Base.lproj:"
show query com.example.phone Localizable --type strings
show query com.example.phone Main --type strings
echo
echo "# Other lprojs are reached only by naming them (forLocalization:):"
show query com.example.phone welcome --type txt
show query com.example.phone welcome --type txt --localization fr
echo
echo "# macOS layout: Contents/Resources, dev region de before Base.lproj; nested plug-in; framework root fallback:"
show query com.example.notes MainMenu --type nib
show query com.example.notes.export formats --type json
show query com.example.render Render
show info com.example.phone CFBundleName
show stats
