#!/usr/bin/env bash
# Benchmark: every signed-in page against its own bytes served as a constant behind the same
# middleware and session check, and that constant against the same bytes with no session at
# all. Release build, sandbox without rate limits, mirror filled, warm cache.
# Goals (issue: triage at speed): every page >= 50 % of its constant; the signed-in constant
# >= 50 % of the open one; every page's p50 at one connection <= 5 ms (warm: a view repeated
# while nothing changed is answered from the page's recent copy, RecentPages). Then each page
# once more with the copies off (CONSOLE_RECENT_PAGE_LIFETIME=0): what a view costs when it
# must be read and rendered (a first view, or the first after any change).
# The constants are answered by the page benchmark's own console (`page-benchmark`,
# Benchmarks/PageBenchmark): the console itself never answers them.
# Needs Debian's wrk. DURATION (default 10s) per wrk run; CONNECTIONS (default 4) for rates;
# CONFIGURATION (default release; debug only to try the script quickly, not for figures).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-10s}
connections=${CONNECTIONS:-4}
configuration=${CONFIGURATION:-release}
swift build -c "$configuration" --product console >/dev/null
swift build -c "$configuration" --product page-benchmark >/dev/null
bin="$(swift build -c "$configuration" --show-bin-path)/console"
benchmark="$(swift build -c "$configuration" --show-bin-path)/page-benchmark"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
console_url=http://127.0.0.1:18180

"$bin" sandbox --port 18181 --sandbox-database "$work/sandbox.sqlite" --no-rate-limits --no-apns-stand-in --log-level error &
sleep 3
wait_up() {
  for _ in $(seq 100); do curl -fs "$console_url/healthz" >/dev/null && return; sleep 0.2; done
  echo "console did not start" >&2; exit 1
}
# The console as it is served, to sign in and save each page's bytes.
"$bin" serve --port 18180 --database "$work/console.sqlite" --backend-url http://127.0.0.1:18181/api/v1/ --no-watch --no-metrics --log-level error &
console=$!
wait_up
# The page benchmark's console on the same database: the same pages, plus the saved ones as constants.
serve() {
  CONSOLE_RECENT_PAGE_LIFETIME=${1:-1} "$benchmark" "$work/pages" 18180 "$work/console.sqlite" http://127.0.0.1:18181/api/v1/ &
  console=$!
  wait_up
}
jar="$work/cookies"
token=$(curl -fs -c "$jar" "$console_url/sign-in" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
curl -fs -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf=$token" --data-urlencode login=staff \
  --data-urlencode password=staff-demo-password "$console_url/sign-in"
session=$(awk '$6 == "bc_session" { print $7 }' "$jar")
cookie="Cookie: bc_session=$session"
# The mirror reads once someone is signed in: wait for the three queues to fill.
for queue in libraries reports photos; do
  for _ in $(seq 150); do
    curl -fs -H "$cookie" "$console_url/$queue" | grep -q 'data-row' && break
    sleep 0.2
  done
done
slug=$(curl -fs -H "$cookie" "$console_url/libraries" | grep -o 'data-open="/libraries/[^"?]*' | head -1 | sed 's|.*/libraries/||')
mkdir -p "$work/pages"
pages=(dashboard:/ libraries:/libraries reports:/reports photos:/photos library:/libraries/$slug audit:/audit outbox:/outbox
  statistics:/statistics on-call:/on-call)
for entry in "${pages[@]}"; do
  curl -fs -H "$cookie" "$console_url${entry#*:}" -o "$work/pages/${entry%%:*}.html"
done

# The page benchmark's console, also answering each page's bytes as constants (the session survives).
kill "$console"; wait "$console" 2>/dev/null || true
serve
sleep 2
# shellcheck source=scripts/wrk-measures.sh
source scripts/wrk-measures.sh
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); wrk -t1 -c$connections -d$duration"
results="$work/results"
for entry in "${pages[@]}"; do
  name=${entry%%:*}; path=${entry#*:}
  # Warm: the first requests fill caches and connection pools.
  for _ in 1 2 3; do curl -fs -H "$cookie" "$console_url$path" -o /dev/null; done
  page=$(rate -H "$cookie" "$console_url$path")
  constant=$(rate -H "$cookie" "$console_url/benchmark/constant/$name")
  open=$(rate "$console_url/benchmark/open/$name")
  latency=$(p50 -H "$cookie" "$console_url$path")
  ratio=$(( 100 * page / constant )); session_ratio=$(( 100 * constant / open ))
  met=$(awk -v r="$ratio" -v s="$session_ratio" -v l="$latency" 'BEGIN { print ((r >= 50 && s >= 50 && l <= 5) ? "met" : "NOT-met") }')
  echo "$name $path $page $constant $ratio $latency $open $session_ratio $met" >> "$results"
done

# The same pages once more, rendered on every view (no recent copies).
kill "$console"; wait "$console" 2>/dev/null || true
serve 0
sleep 2
printf '| %-10s | %7s | %8s | %10s | %6s | %7s | %10s | %9s | %-7s | %12s | %12s |\n' page bytes "page r/s" "const r/s" ratio "p50 ms" "open r/s" "const/open" goals \
  "rendered r/s" "rendered p50"
printf '|%s|\n' "------------|---------|----------|------------|--------|---------|------------|-----------|---------|--------------|-------------"
while read -r name path page constant ratio latency open session_ratio met; do
  for _ in 1 2 3; do curl -fs -H "$cookie" "$console_url$path" -o /dev/null; done
  rendered=$(rate -H "$cookie" "$console_url$path")
  rendered_latency=$(p50 -H "$cookie" "$console_url$path")
  printf '| %-10s | %7d | %8d | %10d | %5d%% | %7s | %10d | %8d%% | %-7s | %12d | %12s |\n' \
    "$name" "$(wc -c < "$work/pages/$name.html")" "$page" "$constant" "$ratio" "$latency" "$open" "$session_ratio" "${met/-/ }" \
    "$rendered" "$rendered_latency"
done < "$results"
