#!/usr/bin/env bash
# The soak run of issue 17 (bounded, loopback only): 20 simulated staff members sign in, browse
# and decide against the sandbox with its real limits while the sandbox restarts, a fault proxy
# answers some API calls with 5xx and the console is SIGKILLed twice; then it checks and prints
# a table (scripts/soak.py does the work; see its docstring). Exit status 1 when a check fails.
#
#   scripts/soak.sh                       # builds `console` (debug) and runs 10 minutes
#   BIN=.build/release/console DURATION=600 SETTLE=600 scripts/soak.sh
#
# BIN       the console binary; default: `swift build --product console` (debug: a release
#           build takes twice as long here, and nothing checked depends on speed)
# BUILD     release to build `-c release` instead when BIN is not given
# DURATION  seconds of staff activity (600); SETTLE: the longest wait afterwards for decisions
#           still on their way (600: with 10 writes per 5 minutes, a backlog takes windows)
# STAFF     simulated staff members (20); KEEP=1 keeps the temporary directory
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-600}"
SETTLE="${SETTLE:-600}"
STAFF="${STAFF:-20}"
if [[ -z "${BIN:-}" ]]; then
    if [[ "${BUILD:-debug}" == release ]]; then
        swift build -c release --product console >&2
        BIN="$(swift build -c release --show-bin-path)/console"
    else
        swift build --product console >&2
        BIN="$(swift build --show-bin-path)/console"
    fi
fi
[[ -x "$BIN" ]] || { echo "soak: $BIN is not an executable" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/console-soak.XXXXXX")"
DRIVER=""
cleanup() {
    status=$?
    if [[ -n "$DRIVER" ]] && kill -0 "$DRIVER" 2>/dev/null; then
        kill -TERM "$DRIVER" 2>/dev/null || true
        wait "$DRIVER" 2>/dev/null || true
    fi
    # Whatever the driver started runs in its own session; end those by their recorded pids.
    for pid in $(cat "$WORK"/*.pid 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
    if [[ "${KEEP:-0}" == 1 || $status -ne 0 ]]; then
        echo "soak: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "soak: binary $BIN ($(git rev-parse --short HEAD)), $STAFF staff, ${DURATION}s, settle at most ${SETTLE}s, in $WORK" >&2
python3 scripts/soak.py --console "$BIN" --dir "$WORK" --duration "$DURATION" --settle "$SETTLE" --staff "$STAFF" &
DRIVER=$!
wait "$DRIVER"
