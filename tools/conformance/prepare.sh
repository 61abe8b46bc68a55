#!/usr/bin/env bash
# prepare.sh WORKDIR — build the Foundation oracle and the conformance corpus used by
# Tests/BundleIndexTests/ConformanceTests.swift (which calls it with <package>/.build/conformance).
#
#   WORKDIR/oracle                 tools/oracle/oracle.swift built with swiftc -O (rebuilt only
#                                  when oracle.swift is newer than the binary)
#   WORKDIR/gen/<seed>-<size>/     one generated bundle + expected.json per seed (= run.sh steps;
#                                  also queries.json, answers.json, manifest.json, gen.log)
#   WORKDIR/devonly/<seed>-<size>/ like gen/, with gen.py --only-dev-localization (one lproj,
#                                  named like the development region): the apple-profile check
#   WORKDIR/scenarios/<S-id>/      one scenario bundle + expected.json (scenarios.py --export);
#                                  S10's bundle is absent on purpose (answers are {"error":...})
#   WORKDIR/scenarios-work/        scenarios.py's own work dir (its claim checks + traps binary)
#   WORKDIR/stamp                  key = hash(tools/oracle sources, this script, seed list,
#                                  swiftc version); when it matches, nothing is regenerated
#
# env: SWIFTC (default swiftc), JOBS (parallel seeds, default nproc). Works from any cwd.
# Prints exactly one summary line on success; on failure the relevant log goes to stderr.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ORACLE_DIR="$(cd "$HERE/../oracle" && pwd)"
WORKDIR="${1:?usage: prepare.sh WORKDIR}"
mkdir -p "$WORKDIR"
WORKDIR="$(cd "$WORKDIR" && pwd)"
SWIFTC="${SWIFTC:-swiftc}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
export SWIFTC PYTHONHASHSEED=0
export WORK_DIR="$WORKDIR"          # run.sh / scenarios.py find (and build) the oracle here
export RUNS_DIR="$WORKDIR/gen"      # run.sh writes $RUNS_DIR/<seed>-<size>/
start=$SECONDS

# ------------------------------------------------------------------ seed list
# seeds 1..32: layout cycles through gen.py's 8 layouts, size through 20/40/60 (8 and 3 are
# coprime, so every layout is generated at every size).
LAYOUTS=(ios-app ios-framework macos-app macos-bundle macos-plugin macos-framework
         legacy-resources ios-app-with-Resources-dir)
SIZES=(20 40 60)
SEED_LINES=()                       # "SEED SIZE ORDER LAYOUT" = run.sh's arguments
for seed in $(seq 1 32); do
  SEED_LINES+=("$seed ${SIZES[$(( (seed - 1) % 3 ))]} forward ${LAYOUTS[$(( (seed - 1) % 8 ))]}")
done
DEVONLY_LINES=()                    # seeds 101..124, same layout/size cycle
for seed in $(seq 101 124); do
  DEVONLY_LINES+=("$seed ${SIZES[$(( (seed - 1) % 3 ))]} forward ${LAYOUTS[$(( (seed - 1) % 8 ))]}")
done

# one preparer at a time per WORKDIR (parallel test processes share .build/conformance)
exec 9>"$WORKDIR/.lock"
if command -v flock >/dev/null; then flock 9; fi

# ------------------------------------------------------------------ stamp
KEY="$( {
  cd "$ORACLE_DIR"
  sha256sum oracle.swift gen.py scenarios.py traps.swift run.sh check_order.sh
  sha256sum "$HERE/prepare.sh" | cut -d' ' -f1
  printf '%s\n' "${SEED_LINES[@]}" "${DEVONLY_LINES[@]}"
  "$SWIFTC" --version 2>&1
} | sha256sum | cut -d' ' -f1 )"
STAMP="$WORKDIR/stamp"
count_expected() {
  find "$WORKDIR/gen" "$WORKDIR/devonly" "$WORKDIR/scenarios" -mindepth 2 -maxdepth 2 -name expected.json 2>/dev/null \
    | wc -l | tr -d ' '
}
if [[ -f "$STAMP" && "$(sed -n 1p "$STAMP")" == "$KEY" \
      && "$(sed -n 2p "$STAMP")" == "$(count_expected)" ]]; then
  echo "prepare: up to date — $(sed -n 3p "$STAMP") in $WORKDIR ($(( SECONDS - start ))s)"
  exit 0
fi
rm -f "$STAMP"

# ------------------------------------------------------------------ oracle
ORACLE="$WORKDIR/oracle"
if [[ ! -x "$ORACLE" || "$ORACLE_DIR/oracle.swift" -nt "$ORACLE" ]]; then
  "$SWIFTC" -O "$ORACLE_DIR/oracle.swift" -o "$ORACLE.tmp.$$" >"$WORKDIR/oracle-build.log" 2>&1 \
    || { cat "$WORKDIR/oracle-build.log" >&2; exit 1; }
  mv "$ORACLE.tmp.$$" "$ORACLE"
fi

# ------------------------------------------------------------------ corpus
rm -rf "$WORKDIR/gen" "$WORKDIR/devonly" "$WORKDIR/scenarios"
mkdir -p "$WORKDIR/gen" "$WORKDIR/devonly" "$WORKDIR/scenarios"

# scenarios in the background (it compiles traps.swift the first time) while the seeds run
python3 "$ORACLE_DIR/scenarios.py" --export "$WORKDIR/scenarios" "$WORKDIR/scenarios-work" \
  >"$WORKDIR/scenarios.log" 2>&1 &
scen_pid=$!

# run.sh SEED SIZE ORDER LAYOUT, one per seed; each prints one line (kept in gen.log)
gen_ok=1
printf '%s\n' "${SEED_LINES[@]}" \
  | xargs -P "$JOBS" -L 1 bash "$ORACLE_DIR/run.sh" >"$WORKDIR/gen.log" 2>&1 || gen_ok=0
printf '%s\n' "${DEVONLY_LINES[@]}" \
  | RUNS_DIR="$WORKDIR/devonly" GEN_ARGS=--only-dev-localization \
    xargs -P "$JOBS" -L 1 bash "$ORACLE_DIR/run.sh" >>"$WORKDIR/gen.log" 2>&1 || gen_ok=0
scen_ok=1
wait "$scen_pid" || scen_ok=0
if (( ! gen_ok )); then
  echo "prepare: generating seeds failed:" >&2; cat "$WORKDIR/gen.log" >&2; exit 1
fi
if (( ! scen_ok )); then
  # scenarios.py exits 1 when one of its claims about Foundation no longer holds
  # (docs/search-pattern.md, "Foundation on Linux")
  echo "prepare: scenarios.py failed (see $WORKDIR/scenarios.log):" >&2
  tail -n 40 "$WORKDIR/scenarios.log" >&2; exit 1
fi

# ------------------------------------------------------------------ summary + stamp
SUMMARY="$(python3 - "$WORKDIR" <<'PY'
import glob, json, os, sys
w = sys.argv[1]
def tally(kind):
    files = sorted(glob.glob(os.path.join(w, kind, "*", "expected.json")))
    return len(files), sum(len(json.load(open(f))["cases"]) for f in files)
g, gc = tally("gen")
d, dc = tally("devonly")
s, sc = tally("scenarios")
print(f"gen {g} seeds/{gc} cases, devonly {d} seeds/{dc} cases, scenarios {s}/{sc} cases")
PY
)"
printf '%s\n%s\n%s\n' "$KEY" "$(count_expected)" "$SUMMARY" >"$STAMP.tmp"
mv "$STAMP.tmp" "$STAMP"
echo "prepare: built — $SUMMARY in $WORKDIR ($(( SECONDS - start ))s)"
