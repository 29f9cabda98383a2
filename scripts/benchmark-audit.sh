#!/usr/bin/env bash
# The audit log's benchmarks (docs/benchmarks.md):
#   1. appending entries with their hash chain, one transaction each (target ≥ 5 000/s);
#   2. exporting 1 000 000 entries to CSV (target ≥ 200 000 rows/s, peak memory < 64 MB).
# Release builds; the export runs as the real `console audit export`, its time and peak
# memory read by the kernel (wait4).   Usage: scripts/benchmark-audit.sh [appends] [rows]
set -euo pipefail
cd "$(dirname "$0")/.."
APPENDS=${1:-20000}
ROWS=${2:-1000000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

swift build -c release --product console >/dev/null
swift build -c release --product audit-benchmark >/dev/null
BIN=$(swift build -c release --show-bin-path)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(df -h "$WORK" | tail -1 | awk '{print $1}')"
for run in 1 2 3; do
  rm -f "$WORK"/append.sqlite*
  "$BIN/audit-benchmark" append "$APPENDS" "$WORK/append.sqlite"
done

"$BIN/audit-benchmark" fill "$ROWS" "$WORK/log.sqlite"
for run in 1 2 3; do
  python3 - "$BIN/console" "$WORK" <<'PY'
import os, sys, time
console, work = sys.argv[1], sys.argv[2]
start = time.monotonic()
pid = os.posix_spawn(console, [console, "audit", "export", "--database", f"{work}/log.sqlite", "--format", "csv",
                               "--output", f"{work}/export.csv"], os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.monotonic() - start
rows = sum(1 for _ in open(f"{work}/export.csv", "rb")) - 1
print(f"export: {rows} rows, {os.path.getsize(f'{work}/export.csv') / 1e6:.0f} MB in {seconds:.2f} s = "
      f"{rows / seconds:,.0f} rows/s, peak memory {usage.ru_maxrss / 1024:.1f} MB, exit {os.waitstatus_to_exitcode(status)}")
PY
done
