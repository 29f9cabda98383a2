#!/usr/bin/env bash
# The decision simulation (docs/decision-protocol.md): runs schedules of the real runners, store
# and budget gate against a model of Book Corners on virtual time, and checks I1–I5 after each.
#
#   scripts/simulate.sh --schedules 5000            as many schedules, from a seed taken from the clock
#   scripts/simulate.sh --seed 1795 --schedules 1 --trace
#                                                   replays one schedule and prints its trace
#   scripts/simulate.sh --without-fixes --rounds 10 the proof: the rules before issue 45 plugged in,
#                                                   ten fresh seed ranges; how many schedules each fault took
#
# Prints "N schedules, K broken" and schedules per second; exits non-zero when a schedule broke.
set -euo pipefail
cd "$(dirname "$0")/.."

schedules=""
seed=""
trace=0
rounds=0
width=4
while [ $# -gt 0 ]; do
  case "$1" in
    --schedules) schedules="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --trace) trace=1; shift ;;
    --width) width="$2"; shift 2 ;;
    --without-fixes) rounds=1; shift ;;
    --rounds) rounds="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "simulate.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

swift build --build-tests >&2
tests="$(swift build --show-bin-path)/BookCornersConsolePackageTests.xctest"

if [ "$rounds" -gt 0 ]; then
  # Ten (or --rounds) runs of the proof, each from a fresh seed range, and the median of each fault.
  slow=(); two=()
  for round in $(seq 1 "$rounds"); do
    line="$(SIM_WIDTH="$width" "$tests" --testing-library swift-testing --filter findsTheFaultsWithoutTheFixes 2>&1 | grep 'without the fixes' || true)"
    echo "round $round: ${line#Decision simulation without the fixes, }"
    slow+=("$(sed -n 's/.*sent twice found after \([0-9]*\) schedules.*/\1/p' <<<"$line")")
    two+=("$(sed -n 's/.*one item after \([0-9]*\).*/\1/p' <<<"$line")")
  done
  median() { printf '%s\n' "$@" | grep -E '^[0-9]+$' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  echo "median schedules to find a slow answer sent twice: $(median "${slow[@]}"); two processes sending one item: $(median "${two[@]}")"
  exit 0
fi

export SIM_WIDTH="$width" SIM_TRACE="$trace"
[ -n "$schedules" ] && export SIM_SCHEDULES="$schedules"
[ -n "$seed" ] && export SIM_SEED="$seed"
set +e
"$tests" --testing-library swift-testing --filter searchedSchedulesHold > /tmp/simulate.$$.log 2>&1
status=$?
set -e
# The schedules' traces and broken seeds, without the test runner's own lines.
grep -v -E '(Suite "|Test "|Test run|Testing Library|Target Platform|↳|Decision simulation:)' /tmp/simulate.$$.log | grep -v '^\s*$' || true
grep -E '^Decision simulation: [0-9]' /tmp/simulate.$$.log | sed 's/^Decision simulation: //' | tail -1
rm -f /tmp/simulate.$$.log
exit $status
