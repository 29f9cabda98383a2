#!/usr/bin/env bash
# Benchmark: a signed-in queue page of 20 libraries rendered from cached backend answers,
# against the same server answering the same bytes as a constant string (wrk -t1 -c16).
# Needs Debian's wrk. Prints both rates and the ratio; docs/benchmarks.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-15s}
swift build -c release --product console >/dev/null
bin="$(swift build -c release --show-bin-path)/console"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

"$bin" sandbox --port 18081 --sandbox-database "$work/sandbox.sqlite" --no-rate-limits --log-level error &
sleep 3
serve() {
  "$bin" serve --port 18080 --database "$work/console.sqlite" --backend-url http://127.0.0.1:18081/api/v1/ --log-level error &
  console=$!
  for _ in $(seq 50); do curl -fs http://127.0.0.1:18080/healthz >/dev/null && return; sleep 0.2; done
}
serve
jar="$work/cookies"
token=$(curl -fs -c "$jar" http://127.0.0.1:18080/sign-in | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
curl -fs -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf=$token" --data-urlencode login=staff \
  --data-urlencode password=staff-demo-password http://127.0.0.1:18080/sign-in
session=$(awk '$6 == "bc_session" { print $7 }' "$jar")
curl -fs -H "Cookie: bc_session=$session" http://127.0.0.1:18080/libraries -o "$work/page.html"
echo "queue page: $(wc -c < "$work/page.html") bytes, $(grep -c '<tr>' "$work/page.html") rows (20 libraries + header)"

# The same server again, now also answering the page's bytes as a constant (the session survives).
kill "$console"; wait "$console" 2>/dev/null || true
export CONSOLE_BENCHMARK_CONSTANT_PAGE="$work/page.html"
serve
for path in /libraries /benchmark/constant /libraries /benchmark/constant; do
  curl -fs -H "Cookie: bc_session=$session" "http://127.0.0.1:18080$path" -o /dev/null
  printf '%-20s ' "$path"
  wrk -t1 -c16 -d"$duration" -H "Cookie: bc_session=$session" "http://127.0.0.1:18080$path" | grep -E 'Requests/sec'
done
