#!/usr/bin/env bash
# Benchmark (issue 48, docs/benchmarks.md "Kept rows"): the 50-row pending list of one console
# with its rows kept (`KeptFragments`), while a second `console serve` on the same database
# changes one row a second, against the same list with nothing kept (`--kept-rows 0`).
#
#   BIN=.build-bench/bin/head/console scripts/benchmark-kept-rows.sh
#
# One sandbox without rate limits; console A (measured) and console B on one database, every
# view rendered (`--recent-page-lifetime 0`). Measured on A, each for DURATION with
# `wrk -t1 -cCONNECTIONS` (requests per second) and `wrk -t1 -c1 --latency` (p50), ROUNDS times:
#   warm-quiet    rows kept, nothing changes;
#   warm-changing rows kept, B claims or releases one of ten waiting libraries every second
#                 (each a change the live queue tells every open list of; it makes that row's
#                 HTML another key on the next view);
#   cold          A restarted with `--kept-rows 0`: every row written on every view.
# It prints every round, then the medians, the changes B made, and A's peak RSS (VmHWM).
# Knobs: BIN, ROUNDS (3), DURATION (6s), CONNECTIONS (4). Needs Debian's wrk and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts=$PWD/scripts
bin=$(realpath "${BIN:-.build-bench/bin/head/console}")
resources=$(dirname "$bin")
rounds=${ROUNDS:-3}
duration=${DURATION:-6s}
connections=${CONNECTIONS:-4}
sandbox_port=18381
a_port=18380
b_port=18390
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
# The binary's own Templates and Public when it has them beside it (as benchmark-render.sh keeps them).
[[ -d $resources/Templates ]] && cd "$resources"

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" sandbox --port "$sandbox_port" --sandbox-database "$work/sandbox.sqlite" --no-rate-limits --no-apns-stand-in --log-level error &
until curl -s "http://127.0.0.1:$sandbox_port/api/v1/" -o /dev/null; do sleep 0.5; done

declare -A pid
start() { # name port kept-rows
  "$bin" serve --port "$2" --database "$work/console.sqlite" --backend-url "http://127.0.0.1:$sandbox_port/api/v1/" \
    --recent-page-lifetime 0 --kept-rows "$3" --no-watch --no-metrics --log-level error &
  pid[$1]=$!
  for _ in $(seq 150); do curl -fs "http://127.0.0.1:$2/healthz" -o /dev/null && return; sleep 0.2; done
  echo "console $1 did not start" >&2
  exit 1
}
stop() { kill "${pid[$1]}" 2>/dev/null || true; wait "${pid[$1]}" 2>/dev/null || true; }
declare -A cookie
sign_in() { # name port
  local jar="$work/$1.cookies" token
  token=$(curl -fs -c "$jar" "http://127.0.0.1:$2/sign-in" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
  curl -fs -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf=$token" --data-urlencode login=staff \
    --data-urlencode password=staff-demo-password "http://127.0.0.1:$2/sign-in"
  cookie[$1]="Cookie: bc_session=$(awk '$6 == "bc_session" { print $7 }' "$jar")"
}

list="/libraries?status=pending&page_size=50"
rows() { curl -fs -H "${cookie[a]}" "http://127.0.0.1:$a_port$list" | grep -c '<tr data-row' || true; }
# A's list answers its 50 rows to A's session (so wrk measures the list, not a sign-in page);
# seen once, its rows are kept for the warm runs.
ready() {
  [[ $(rows) -ge 50 ]] || { echo "console A's list does not show 50 rows" >&2; exit 1; }
}
start a "$a_port" 512
sign_in a "$a_port"
for _ in $(seq 300); do
  [[ $(rows) -ge 50 ]] && break
  sleep 0.2
done
ready
sleep 5
start b "$b_port" 512
sign_in b "$b_port"
page=$(curl -fs -H "${cookie[b]}" "http://127.0.0.1:$b_port$list")
mapfile -t slugs < <(grep -o 'formaction="/libraries/[^"/]*/claim"' <<<"$page" | sed 's|formaction="/libraries/||; s|/claim"||' | head -10)
csrf=$(grep -o 'name="csrf" value="[^"]*"' <<<"$page" | head -1 | sed 's/.*value="//;s/"$//')
[[ ${#slugs[@]} -eq 10 && -n $csrf ]] || { echo "console B's list offers no ten libraries to claim" >&2; exit 1; }

# Console B: one change a second, claims then releases of the ten in turn, counted on from round
# to round (so each claim finds its library released); each answer counted, 000 when none came.
echo 0 >"$work/n"
changes() {
  local n action code
  n=$(cat "$work/n")
  while true; do
    action=$([[ $(((n / 10) % 2)) == 0 ]] && echo claim || echo release)
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "${cookie[b]}" --data-urlencode "csrf=$csrf" --data-urlencode "back=/libraries" \
      "http://127.0.0.1:$b_port/libraries/${slugs[$((n % 10))]}/$action" || true)
    echo "$code" >>"$work/changes"
    n=$((n + 1))
    echo "$n" >"$work/n"
    sleep 1
  done
}

# shellcheck source=scripts/wrk-measures.sh
source "$scripts/wrk-measures.sh"
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary $bin; wrk -t1 -c$connections -d$duration; $rounds rounds; list-50 is $list"
declare -A rates p50s
peak=0
measure() { # label
  rates[$1]+=" $(rate -H "${cookie[a]}" "http://127.0.0.1:$a_port$list")"
  p50s[$1]+=" $(p50 -H "${cookie[a]}" "http://127.0.0.1:$a_port$list")"
}
for round in $(seq "$rounds"); do
  measure warm-quiet
  changes &
  changer=$!
  sleep 2
  measure warm-changing
  kill "$changer"
  wait "$changer" 2>/dev/null || true
  hwm=$(awk '/VmHWM/ { print $2 }' "/proc/${pid[a]}/status")
  ((hwm > peak)) && peak=$hwm
  stop a
  start a "$a_port" 0
  ready
  measure cold
  stop a
  start a "$a_port" 512
  ready
  echo "round $round: warm-quiet ${rates[warm-quiet]##* } req/s ${p50s[warm-quiet]##* } ms;" \
    "warm-changing ${rates[warm-changing]##* } req/s ${p50s[warm-changing]##* } ms; cold ${rates[cold]##* } req/s ${p50s[cold]##* } ms"
done
median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for label in warm-quiet warm-changing cold; do
  echo "median $label: $(median "${rates[$label]}") req/s at $connections connections, p50 $(median "${p50s[$label]}") ms at one"
done
echo "console B's changes: $(sort "$work/changes" | uniq -c | awk '{ printf "%s answered %s; ", $1, $2 }')"
echo "console A's peak RSS with rows kept (VmHWM, the highest of its warm runs): $((peak / 1024)) MiB"
