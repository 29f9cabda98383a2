#!/usr/bin/env bash
# Benchmark: the mirror at 50 000 libraries (docs/benchmarks.md, "Mirror at 50 000 libraries").
#
#   scripts/benchmark-mirror-scale.sh pass    windows a full pass takes at the default budget,
#                                             time-scaled: the sandbox's window and every interval
#                                             of the sync divided by FACTOR, 60 reads per window kept
#   scripts/benchmark-mirror-scale.sh speed   mirror size on disk, and every page's p50 latency and
#                                             req/s (wrk -t1 -c16) with SMALL and LIBRARIES mirrored
#   scripts/benchmark-mirror-scale.sh pair    the library pages' req/s with SMALL and LIBRARIES served at
#                                             once, measured in turns ROUNDS (3) times: the ratio with
#                                             both under the same load (needs REUSE_MIRROR)
#
# Knobs (environment): LIBRARIES (50000), SMALL (400), FACTOR (25: a 12-s window), MAX_WINDOWS (120),
# PENDING_INTERVAL (seconds, unscaled; default the console's 120), DURATION (12s), Q (search word), SHORT_Q (a two-letter one: the scan, pa),
# FULL_Q (a word searched in every status that fills the page at both sizes, like for like: book),
# REUSE_MIRROR (a console SQLite filled before, with its .key: measured as the LIBRARIES run, no fill),
# LIBRARIES_ONLY (1: fill only the libraries), KEEP_MIRROR (a folder to keep the filled mirror in), CONSOLE_PORT and SANDBOX_PORT (18180, 18181: give a second run other ports), BIN (a built console: build nothing).
# Needs Debian's wrk and sqlite3. Release build. A seeded sandbox file is kept under .build/benchmark-mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-speed}
libraries=${LIBRARIES:-50000}
small=${SMALL:-400}
factor=${FACTOR:-25}
max_windows=${MAX_WINDOWS:-120}
duration=${DURATION:-12s}
query_word=${Q:-Paris}
sandbox_port=${SANDBOX_PORT:-18181}
console_port=${CONSOLE_PORT:-18180}

# BIN: an already built console (the script then builds nothing).
if [[ -n "${BIN:-}" ]]; then
  bin=$BIN
else
  swift build -c release --product console >/dev/null
  bin="$(swift build -c release --show-bin-path)/console"
fi
cache=.build/benchmark-mirror
mkdir -p "$cache"
work=$(mktemp -d)
scratch=$work  # `pair` works in subfolders of it; the trap removes it all
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT

# The sandbox listens once seeded; any answer will do (an unknown path spends no read of a limited scope).
# A sandbox file seeded with $1 libraries; seeding 50 000 takes a while, so it is kept (reads never change it).
seeded() {
  local file="$cache/sandbox-$1.sqlite"
  if [[ ! -f "$file" ]]; then
    "$bin" sandbox --port "$sandbox_port" --apns-port "$((sandbox_port + 10))" --sandbox-database "$work/seeding.sqlite" --libraries "$1" --log-level error >/dev/null &
    local pid=$!
    until curl -s "http://127.0.0.1:$sandbox_port/api/v1/" -o /dev/null; do sleep 1; done
    kill "$pid"; wait "$pid" 2>/dev/null || true
    sqlite3 "$work/seeding.sqlite" "VACUUM INTO '$file'"
    rm -f "$work"/seeding.sqlite*
  fi
  echo "$file"
}

start_sandbox() { # libraries, extra options...
  local count=$1; shift
  # The previous sandbox's -wal/-shm must go too: SQLite would replay them into this copy.
  rm -f "$work"/sandbox.sqlite*
  cp "$(seeded "$count")" "$work/sandbox.sqlite"
  "$bin" sandbox --port "$sandbox_port" --apns-port "$((sandbox_port + 10))" --sandbox-database "$work/sandbox.sqlite" --log-level error "$@" >/dev/null &
  sandbox_pid=$!
  until curl -s "http://127.0.0.1:$sandbox_port/api/v1/" -o /dev/null; do sleep 0.5; done
}

start_console() { # extra options...
  "$bin" serve --port "$console_port" --metrics-port "$((console_port + 10))" --database "$work/console.sqlite" \
    --backend-url "http://127.0.0.1:$sandbox_port/api/v1/" --log-level error "$@" >>"$work/console.log" &
  console_pid=$!
  until curl -fs "http://127.0.0.1:$console_port/healthz" -o /dev/null; do sleep 0.2; done
}

stop_console() { kill "$console_pid"; wait "$console_pid" 2>/dev/null || true; }
stop_sandbox() { kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true; }

sign_in() {
  local jar="$work/cookies"
  local token
  token=$(curl -fs -c "$jar" "http://127.0.0.1:$console_port/sign-in" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
  curl -fs -b "$jar" -c "$jar" -o /dev/null --data-urlencode "csrf=$token" --data-urlencode login=staff \
    --data-urlencode password=staff-demo-password "http://127.0.0.1:$console_port/sign-in"
  session=$(awk '$6 == "bc_session" { print $7 }' "$jar")
}

# Keeps the session active (the sync reads with the most recently active staff member's tokens); no backend read.
touch_session() { curl -fs -H "Cookie: bc_session=$session" "http://127.0.0.1:$console_port/healthz" -o /dev/null || true; }

sql() { sqlite3 -readonly "$work/console.sqlite" "$1" 2>/dev/null || echo "?"; }
mirrored_libraries() { sql "SELECT COUNT(*) FROM mirrorLibrary WHERE goneAt IS NULL"; }
# What the seed made: the sandbox's own counts.
sandbox_count() { sqlite3 -readonly "$work/sandbox.sqlite" "SELECT COUNT(*) FROM $1"; }

pass() {
  local window=$((300 / factor))
  (( window * factor == 300 )) || { echo "FACTOR must divide 300" >&2; exit 2; }
  scaled() { python3 -c "print(round($1 / $factor, 6))"; }
  local pending=${PENDING_INTERVAL:-120}
  start_sandbox "$libraries" --rate-window "$window"
  local expected
  expected=$(sandbox_count library)
  start_console --mirror-backend-window "$window" --mirror-first-page-interval "$(scaled 25)" \
    --mirror-pending-interval "$(scaled "$pending")" --mirror-pass-interval "$(scaled 60)" \
    --mirror-tick-interval "$(scaled 1)" --mirror-statistics-interval "$(scaled 300)"
  sign_in
  echo "full pass, time-scaled x$factor: window ${window} s (= 300 s), 60 reads per scope and window, share 0.5," \
    "first page every $(scaled 25) s, pending items every $(scaled "$pending") s, $expected libraries in the sandbox"
  local first
  first=$(python3 -c "import time; print(int(time.time() // $window))")
  printf '%7s %8s %9s %9s %9s %9s %10s %9s %8s\n' window elapsed libraries pending approved rejected pass-page pass-reads reports
  local previous_page=1 started=$SECONDS
  for ((w = 1; w <= max_windows; w++)); do
    # Sample just before the end of each window, when its reads are done.
    python3 -c "import time; t = time.time(); end = (int(t // $window) + 1) * $window; time.sleep(max(0, end - 0.05 - t))"
    touch_session
    local counts page
    counts=$(sql "SELECT COUNT(*), SUM(status='pending'), SUM(status='approved'), SUM(status='rejected') FROM mirrorLibrary WHERE goneAt IS NULL")
    page=$(sql "SELECT passNextPage FROM mirrorScopeState WHERE scope='api-library-moderation-list'")
    local done
    done=$(sql "SELECT lastPassCompletedAt IS NOT NULL FROM mirrorScopeState WHERE scope='api-library-moderation-list'")
    [[ -z "$page" || "$page" == "?" ]] && page=1
    local reads=$((page >= previous_page ? page - previous_page : page))
    [[ "$done" == "1" ]] && reads="end"
    IFS='|' read -r total p a r <<<"$counts"
    printf '%7s %7ss %9s %9s %9s %9s %10s %9s %8s\n' "$((w))" "$((SECONDS - started))" "$total" "${p:-0}" "${a:-0}" "${r:-0}" "$page" "$reads" \
      "$(sql 'SELECT COUNT(*) FROM mirrorReport WHERE goneAt IS NULL')"
    previous_page=$page
    sleep 0.1
    if [[ "$total" == "$expected" ]]; then
      echo "mirror holds all $expected libraries after $w windows (first window index $first) = $((w * 300)) s real time"
      break
    fi
  done
  echo "library list scope at the end:"; sql "SELECT * FROM mirrorScopeState" | sed 's/^/  /'
  stop_console; stop_sandbox
}

# Fills the mirror with every library, report and photo as fast as the sandbox answers.
fill() { # libraries
  start_sandbox "$1" --no-rate-limits
  rm -f "$work"/console.sqlite* "$work/console.key"
  start_console --mirror-backend-limit 100000
  sign_in
  local expected reports photos started=$SECONDS
  expected=$(sandbox_count library); reports=$(sandbox_count report); photos=$(sandbox_count photo)
  # LIBRARIES_ONLY=1: the libraries alone (enough for the library pages and search; reports and photos
  # were seen to wait behind a 50 000-library pass for minutes).
  until [[ "$(mirrored_libraries)" == "$expected" ]] && { [[ -n "${LIBRARIES_ONLY:-}" ]] || [[ "$(sql 'SELECT COUNT(*) FROM mirrorReport')" == "$reports" \
    && "$(sql 'SELECT COUNT(*) FROM mirrorPhoto')" == "$photos" && "$(sql 'SELECT COUNT(*) FROM mirrorStatistics')" == "1" ]]; }; do
    touch_session; sleep 1
  done
  echo "mirror filled with $expected libraries, $reports reports, $photos photos in $((SECONDS - started)) s"
}

# Waits until the console's first pass has stored the reasons of every waiting library (rows then
# show stored reasons, as they do in use), and says how long the pass took from the console's start.
wait_for_reasons() {
  local started=$SECONDS waiting stored
  waiting=$(sql "SELECT COUNT(*) FROM mirrorLibrary WHERE status = 'pending' AND goneAt IS NULL")
  for _ in $(seq 1 1200); do
    stored=$(sql "SELECT COUNT(*) FROM libraryAssessment" 2>/dev/null || echo 0)
    [[ "$stored" =~ ^[0-9]+$ && "$stored" -ge "$waiting" ]] && break
    sleep 0.5
  done
  echo "reasons of $waiting waiting libraries stored $((SECONDS - started)) s after the console answered (stored: $stored)"
}

# wrk on one page for DURATION as a signed-in staff member: its p50 and req/s, tab-separated
# (the rate marked "(non-2xx!)" when any answer was not a 2xx).
measure() { # url, session
  local out p50 rate
  out=$(wrk -t1 -c16 -d"$duration" --timeout 30s --latency -H "Cookie: bc_session=$2" "$1")
  p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
  rate=$(awk '$1 == "Requests/sec:" { print $2 }' <<<"$out")
  [[ "$out" == *"Non-2xx"* ]] && rate="$rate (non-2xx!)"
  printf '%s\t%s\n' "$p50" "$rate"
}

size_of() { du -b "$@" 2>/dev/null | awk '{ sum += $1 } END { printf "%.1f MB", sum / 1000000 }'; }

speed() {
  local results="$work/results"
  for count in "$small" "$libraries"; do
    if [[ -n "${REUSE_MIRROR:-}" && "$count" == "$libraries" ]]; then
      # A console SQLite (and its console.key beside it, .key for .sqlite) filled earlier, maybe partly.
      start_sandbox "$count" --no-rate-limits
      rm -f "$work"/console.sqlite*
      cp "$REUSE_MIRROR" "$work/console.sqlite"; cp "${REUSE_MIRROR%.sqlite}.key" "$work/console.key"
      echo "mirror reused from $REUSE_MIRROR: $(mirrored_libraries) libraries, $(sql 'SELECT COUNT(*) FROM mirrorReport') reports, $(sql 'SELECT COUNT(*) FROM mirrorPhoto') photos"
    else
      fill "$count"
      stop_console  # a graceful stop checkpoints the WAL into the file
      # KEEP_MIRROR=dir: a copy of the filled mirror and its key, to profile or to reuse (REUSE_MIRROR).
      if [[ -n "${KEEP_MIRROR:-}" && "$count" == "$libraries" ]]; then
        mkdir -p "$KEEP_MIRROR"; cp "$work/console.sqlite" "$KEEP_MIRROR/console.sqlite"; cp "$work/console.key" "$KEEP_MIRROR/console.key"
      fi
    fi
    echo "console SQLite with $count libraries: $(size_of "$work"/console.sqlite*) (no VACUUM)"
    sqlite3 "$work/console.sqlite" "VACUUM INTO '$work/vacuumed.sqlite'"
    echo "console SQLite with $count libraries: $(size_of "$work/vacuumed.sqlite") (after VACUUM)"
    sql "SELECT 'mirrorLibrary rows: ' || COUNT(*) FROM mirrorLibrary"
    rm -f "$work/vacuumed.sqlite"
    # The real budget again (60 reads, 300-s windows): the sync reads what it would in production.
    # A reused mirror came from another sandbox: its sync would find its libraries gone, so it is off.
    if [[ -n "${REUSE_MIRROR:-}" && "$count" == "$libraries" ]]; then start_console --no-mirror; else start_console; fi
    wait_for_reasons
    sign_in
    local slug
    slug=$(sql "SELECT slug FROM mirrorLibrary WHERE status='pending' AND goneAt IS NULL ORDER BY createdAt DESC, id DESC LIMIT 1")
    for path in / /libraries "/libraries?status=all" "/libraries?q=$query_word" "/libraries?q=${SHORT_Q:-pa}" "/libraries?status=all&q=${FULL_Q:-book}" "/libraries/$slug" /reports /photos /statistics /audit; do
      local url="http://127.0.0.1:$console_port$path"
      curl -fs -H "Cookie: bc_session=$session" "$url" -o "$work/page.html"
      local bytes load out
      bytes=$(wc -c <"$work/page.html")
      load=$(cut -d' ' -f1 /proc/loadavg)
      local p50 rate
      IFS=$'\t' read -r p50 rate < <(measure "$url" "$session")
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$count" "${path/$slug/<slug>}" "$bytes" "$p50" "$rate" "$load" | tee -a "$results"
    done
    stop_console; stop_sandbox
  done
  echo
  echo "| page | p50 ($small) | req/s ($small) | p50 ($libraries) | req/s ($libraries) | $libraries vs $small |"
  echo "|---|---|---|---|---|---|"
  python3 - "$results" "$small" "$libraries" <<'EOF'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
by = {(r[0], r[1]): r for r in rows}
for path in dict.fromkeys(r[1] for r in rows):
    a, b = by.get((sys.argv[2], path)), by.get((sys.argv[3], path))
    if not a or not b: continue
    ratio = float(b[4].split()[0]) / float(a[4].split()[0]) * 100
    print(f"| `{path}` | {a[3]} | {a[4]} | {b[3]} | {b[4]} | {ratio:.0f} % |")
EOF
  echo "(load average 1 min at each wrk start: $(cut -f6 "$results" | tr '\n' ' '))"
}

# Both sizes served at once, each page measured in turns (SMALL, then LIBRARIES, ROUNDS times), so
# the load of the machine, the refreshers of both consoles and any drift weigh on both alike (both
# run without the sync: the reused mirror's is off, so the small one's is too); the
# sequential `speed` saw the same build's figure move by 15 % between runs as the load rose.
pair() {
  local base=$work rounds=${ROUNDS:-3} results="$work/pair-results"
  local -A port session_of slug_of
  [[ -n "${REUSE_MIRROR:-}" ]] || { echo "pair needs REUSE_MIRROR (a filled $libraries mirror)" >&2; exit 2; }
  for count in "$small" "$libraries"; do
    work="$base/$count"; mkdir -p "$work"
    if [[ "$count" == "$small" ]]; then
      # The small mirror is filled from a sandbox of its own, on other ports, and stays served by them.
      sandbox_port=$((${SANDBOX_PORT:-18181} + 2)); console_port=$((${CONSOLE_PORT:-18180} + 2))
      fill "$count"; stop_console
    else
      sandbox_port=${SANDBOX_PORT:-18181}; console_port=${CONSOLE_PORT:-18180}
      start_sandbox "$count" --no-rate-limits
      cp "$REUSE_MIRROR" "$work/console.sqlite"; cp "${REUSE_MIRROR%.sqlite}.key" "$work/console.key"
    fi
    # Both without the sync, alike: the reused mirror's sandbox is another one, and a sync would
    # load one side only.
    start_console --no-mirror
    wait_for_reasons
    sign_in
    port[$count]=$console_port; session_of[$count]=$session
    slug_of[$count]=$(sql "SELECT slug FROM mirrorLibrary WHERE status='pending' AND goneAt IS NULL ORDER BY createdAt DESC, id DESC LIMIT 1")
  done
  work=$base
  for path in / /libraries "/libraries?status=all" "/libraries?q=$query_word" "/libraries?q=${SHORT_Q:-pa}" "/libraries?status=all&q=${FULL_Q:-book}" "/libraries/<slug>" /audit; do
    for ((round = 1; round <= rounds; round++)); do
      for count in "$small" "$libraries"; do
        local here=${path/<slug>/${slug_of[$count]}} p50 rate load
        load=$(cut -d' ' -f1 /proc/loadavg)
        IFS=$'\t' read -r p50 rate < <(measure "http://127.0.0.1:${port[$count]}$here" "${session_of[$count]}")
        [[ "$rate" == *"non-2xx"* ]] && { echo "non-2xx answers for $here at $count" >&2; exit 1; }
        printf '%s\t%s\t%s\t%s\t%s\n' "$count" "$path" "$round" "$rate" "$load" | tee -a "$results"
      done
    done
  done
  echo
  echo "| page | req/s at $small, each round | req/s at $libraries, each round | $libraries vs $small, each round | median |"
  echo "|---|---|---|---|---|"
  python3 - "$results" "$small" "$libraries" <<'EOF'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
for path in dict.fromkeys(r[1] for r in rows):
    a = [float(r[3]) for r in rows if r[1] == path and r[0] == sys.argv[2]]
    b = [float(r[3]) for r in rows if r[1] == path and r[0] == sys.argv[3]]
    ratios = [y / x * 100 for x, y in zip(a, b)]
    show = lambda values: " · ".join(f"{v:.0f}" for v in values)
    print(f"| `{path}` | {show(a)} | {show(b)} | {' · '.join(f'{r:.0f} %' for r in ratios)} | **{statistics.median(ratios):.0f} %** |")
EOF
  echo "(load average 1 min at each wrk start: $(cut -f5 "$results" | tr '\n' ' '))"
}

case "$mode" in
  pass) pass ;;
  speed) speed ;;
  pair) pair ;;
  *) echo "usage: $0 pass|speed|pair" >&2; exit 2 ;;
esac
