#!/usr/bin/env bash
# Makes sure what bundleidx builds against is installed: Debian's liblmdb-dev and libxxhash-dev
# (found through pkg-config), pkg-config itself, python3 for the test harness, lmdb-utils and
# strace for tools/fault-probes. As root it installs what is missing with apt-get; otherwise it
# prints the exact command and fails.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# tools/fault-probes writes old-format and foreign indexes and reads reader tables with these.
command -v mdb_load >/dev/null 2>&1 || missing+=(lmdb-utils)
# tools/fault-probes injects ENOMEM into system calls with strace (probe kernel_memory).
command -v strace >/dev/null 2>&1 || missing+=(strace)
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists lmdb || missing+=(liblmdb-dev)
  pkg-config --exists libxxhash || missing+=(libxxhash-dev)
else
  missing+=(liblmdb-dev libxxhash-dev)
fi

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "install-deps: missing ${missing[*]}; install them with:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: no swift on PATH (Swift 6.1 or newer is needed; /opt/swift/usr/bin on these machines)" >&2
  exit 1
fi
