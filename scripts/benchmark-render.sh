#!/usr/bin/env bash
# Benchmark (issue 48, docs/benchmarks.md "Pages at the speed of bytes"): rendered pages of two
# builds side by side, in turns. Every view is rendered (`--recent-page-lifetime 0`), the sandbox
# runs without rate limits, the mirror is filled.
#
#   scripts/benchmark-render.sh [BASE] [HEAD]
#
# builds BASE (default: ac34c88, the code before issue 48) and HEAD (default: HEAD) in release
# mode in turn, in one worktree and one scratch folder (the dependencies are built once), keeps
# each binary with its own Templates and Public, then measures ROUNDS (3) rounds; each round
# serves BASE, then HEAD, on their own console databases (filled from one sandbox) and runs, per
# page, `wrk -t1 -cCONNECTIONS -dDURATION` (requests per second) and `wrk -t1 -c1 --latency`
# (p50). It prints every round's figures, then the medians with HEAD / BASE, each console's peak
# RSS (VmHWM) and the cost of one row: (1/rate(50 rows) - 1/rate(1 row)) / 49.
#
# Pages: the pending libraries list with 50 rows, the same list with 1 row (list-1: filtered to a
# country with one waiting library; search-1: searched by one library's own name), the reports and
# photos queues, a library's page, the dashboard. A row's cost uses list-1, which differs from
# list-50 by its rows alone (a search's own cost is not a row's).
# Knobs: ROUNDS (3), DURATION (8s), CONNECTIONS (4), TREE and SCRATCH (the worktree and the
# scratch folder, default under .build-bench/), SKIP_BUILD=1 (measure the binaries built before).
# Needs Debian's wrk and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-ac34c88}
head=${2:-HEAD}
rounds=${ROUNDS:-3}
duration=${DURATION:-8s}
connections=${CONNECTIONS:-4}
bench=$PWD/.build-bench
tree=${TREE:-$bench/tree}
scratch=${SCRATCH:-$bench/scratch}
sandbox_port=18281
console_port=18280
mkdir -p "$bench/bin"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

# One worktree, one scratch folder: BASE then HEAD, each binary kept with its resources.
build() { # label revision
  local label=$1 revision
  revision=$(git rev-parse --verify "$2^{commit}")
  if [[ ! -d "$tree" ]]; then git worktree add --detach "$tree" "$revision" >/dev/null; fi
  git -C "$tree" checkout --detach --quiet "$revision"
  echo "building $label ($revision) in release mode" >&2
  (cd "$tree" && swift build -c release --product console --scratch-path "$scratch" >"$bench/build-$label.log" 2>&1) || {
    tail -20 "$bench/build-$label.log"
    exit 1
  }
  rm -rf "${bench:?}/bin/$label"
  mkdir -p "$bench/bin/$label"
  cp "$scratch/release/console" "$bench/bin/$label/console"
  git archive "$revision" Templates Public | tar -x -C "$bench/bin/$label"
  echo "$revision" >"$bench/bin/$label/revision"
}
if [[ -z "${SKIP_BUILD:-}" ]]; then
  build base "$base"
  build head "$head"
fi

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$bench/bin/head/console" sandbox --port "$sandbox_port" --sandbox-database "$work/sandbox.sqlite" --no-rate-limits --no-apns-stand-in \
  --log-level error &
until curl -s "http://127.0.0.1:$sandbox_port/api/v1/" -o /dev/null; do sleep 0.5; done
url=http://127.0.0.1:$console_port

start() { # label
  "$bench/bin/$1/console" serve --port "$console_port" --database "$work/$1.sqlite" --backend-url "http://127.0.0.1:$sandbox_port/api/v1/" \
    --recent-page-lifetime 0 --no-watch --no-metrics --log-level error &
  console=$!
  for _ in $(seq 150); do curl -fs "$url/healthz" -o /dev/null && return; sleep 0.2; done
  echo "console $1 did not start" >&2
  exit 1
}
stop() { kill "$console"; wait "$console" 2>/dev/null || true; }

# Each console signs in once (its session is kept in its own database) and fills its mirror.
declare -A cookie
for label in base head; do
  start "$label"
  jar="$work/$label.cookies"
  token=$(curl -fs -c "$jar" "$url/sign-in" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
  curl -fs -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf=$token" --data-urlencode login=staff \
    --data-urlencode password=staff-demo-password "$url/sign-in"
  cookie[$label]="Cookie: bc_session=$(awk '$6 == "bc_session" { print $7 }' "$jar")"
  for entry in "libraries?status=pending&page_size=50:50" reports:1 photos:1; do
    for _ in $(seq 300); do
      [[ $(curl -fs -H "${cookie[$label]}" "$url/${entry%:*}" | grep -c '<tr data-row\|data-row ') -ge ${entry##*:} ]] && break
      sleep 0.2
    done
  done
  # The first pass's last pages.
  sleep 5
  stop
done

# The 1-row list: a waiting library's name that finds only it; a library's page: the same library.
start head
list=$(curl -fs -H "${cookie[head]}" "$url/libraries?status=pending&page_size=50")
rows=$(grep -c '<tr data-row' <<<"$list")
while IFS=$'\t' read -r slug name; do
  query=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$name")
  found=$(curl -fs -H "${cookie[head]}" "$url/libraries?status=pending&page_size=50&q=$query" | grep -c '<tr data-row' || true)
  [[ $found == 1 ]] && break
done < <(python3 -c '
import html, re, sys
for slug, name in re.findall(r"id=\"library-([^\"]*)\".*?aria-label=\"Select ([^\"]*)\"", sys.stdin.read(), re.S):
    print(slug + "\t" + html.unescape(name))' <<<"$list")
stop
[[ $found == 1 ]] || { echo "no waiting library's name finds only it" >&2; exit 1; }
# The 1-row list without a search: a country with one waiting library.
country=$(python3 -c '
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT country FROM mirrorLibrary WHERE status = \x27pending\x27 AND goneAt IS NULL GROUP BY country HAVING COUNT(*) = 1 ORDER BY country LIMIT 1").fetchone()
print(row[0] if row else "")' "$work/head.sqlite")
[[ -n $country ]] || { echo "no country has exactly one waiting library" >&2; exit 1; }
pages=("list-50:/libraries?status=pending&page_size=50" "list-1:/libraries?status=pending&page_size=50&country=$country"
  "search-1:/libraries?status=pending&page_size=50&q=$query" "reports:/reports" "photos:/photos" "library:/libraries/$slug" "dashboard:/")

# shellcheck source=scripts/wrk-measures.sh
source scripts/wrk-measures.sh
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "base $(cat "$bench/bin/base/revision"), head $(cat "$bench/bin/head/revision"); wrk -t1 -c$connections -d$duration; $rounds rounds"
echo "list-50 has $rows rows; list-1 is the waiting libraries of $country (one); search-1 searches \"$name\""
results=$work/results
for round in $(seq "$rounds"); do
  for label in base head; do
    start "$label"
    for entry in "${pages[@]}"; do
      path=${entry#*:}
      for _ in 1 2 3 4 5; do curl -fs -H "${cookie[$label]}" "$url$path" -o /dev/null; done
      shown=$(curl -fs -H "${cookie[$label]}" "$url$path" | grep -c '<tr data-row' || true)
      echo "$round $label ${entry%%:*} $(rate -H "${cookie[$label]}" "$url$path") $(p50 -H "${cookie[$label]}" "$url$path") $shown" | tee -a "$results"
    done
    echo "$round $label rss-kib $(awk '/VmHWM/ { print $2 }' "/proc/$console/status")" | tee -a "$results"
    stop
  done
done

python3 - "$results" <<'EOF'
import statistics, sys
rates, latencies, rss = {}, {}, {}
for line in open(sys.argv[1]):
    parts = line.split()
    if parts[2] == "rss-kib":
        rss.setdefault(parts[1], []).append(int(parts[3]))
        continue
    _, label, page, rate, p50, _ = parts
    rates.setdefault((label, page), []).append(float(rate))
    latencies.setdefault((label, page), []).append(float(p50))
pages = list(dict.fromkeys(page for _, page in rates))
print()
print("| page | base r/s (each round) | head r/s (each round) | head / base (median) | base p50 ms | head p50 ms |")
print("|---|---|---|---|---|---|")
median = lambda values: statistics.median(values)
for page in pages:
    b, h = rates[("base", page)], rates[("head", page)]
    print(f"| {page} | {' · '.join(f'{v:.0f}' for v in b)} | {' · '.join(f'{v:.0f}' for v in h)} | "
          f"**{median(h) / median(b):.1f}×** | {median(latencies[('base', page)]):.2f} | {median(latencies[('head', page)]):.2f} |")
for label in ("base", "head"):
    r50, r1 = median(rates[(label, "list-50")]), median(rates[(label, "list-1")])
    per_row = (1 / r50 - 1 / r1) / 49 * 1000
    print(f"{label}: one row costs {per_row * 1000:.1f} µs ((1/{r50:.0f} - 1/{r1:.0f}) / 49); a page before its rows {1000 / r1:.2f} ms; "
          f"peak RSS {max(rss[label]) / 1024:.1f} MiB (each round: {', '.join(f'{v / 1024:.1f}' for v in rss[label])})")
EOF
