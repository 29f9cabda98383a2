#!/usr/bin/env bash
# Decisions per second through the action runner (docs/benchmarks.md).
#
# Starts a sandbox (LIBRARIES libraries, default 2500, no rate limits) and a console against it
# with budgets so high that nothing throttles the runner, signs in as `staff` through the console's
# form, then queues COUNT approvals of pending libraries straight into the console's `action` table
# in one transaction and measures the wall time from that commit until every one of them is
# finished (applied, conflict, failed or cancelled). What is measured is the runner's own work per
# decision: its database writes, the check read and the PATCH over loopback HTTP. The runner finds
# the rows by itself (it looks for due work about once a second).
#
#   scripts/benchmark-decisions.sh CONSOLE_BINARY [COUNT]      (COUNT default 300)
#
# Prints one line: `decisions: COUNT in S s = R per second (applied A, other O)`.
# Needs only python3 (its stdlib sqlite3 module) and curl besides the binary; builds nothing.
# LIBRARIES (default 2500) seeds the sandbox: 2500 gives exactly 300 pending libraries (2000 gives
# 240), and COUNT must not exceed the pending ones. TIMEOUT (seconds, default 600) bounds the wait.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 CONSOLE_BINARY [COUNT]" >&2
  exit 2
fi
binary=$1
count=${2:-300}
timeout=${TIMEOUT:-600}
libraries=${LIBRARIES:-2500}
[ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }

work=$(mktemp -d)
sandbox=""
console=""
cleanup() {
  [ -n "$console" ] && kill "$console" 2>/dev/null || true
  [ -n "$sandbox" ] && kill "$sandbox" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p1=$(free_port)
p2=$(free_port)
api="http://127.0.0.1:$p1/api/v1"
base="http://127.0.0.1:$p2"

"$binary" sandbox --port "$p1" --sandbox-database "$work/sandbox.sqlite" --no-rate-limits --no-apns-stand-in \
  --log-level error --libraries "$libraries" >"$work/sandbox.log" 2>&1 &
sandbox=$!
for _ in $(seq 600); do
  curl -s -o /dev/null "$api/" && break
  kill -0 "$sandbox" 2>/dev/null || { cat "$work/sandbox.log" >&2; exit 1; }
  sleep 0.1
done

"$binary" serve --port "$p2" --database "$work/console.sqlite" --backend-url "$api/" --no-watch --no-metrics \
  --log-level error --backend-write-limit 100000 --mirror-backend-limit 100000 >"$work/console.log" 2>&1 &
console=$!
healthy=""
for _ in $(seq 600); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/healthz" || true)" = 200 ]; then healthy=1; break; fi
  kill -0 "$console" 2>/dev/null || break
  sleep 0.1
done
[ -n "$healthy" ] || { echo "the console did not answer /healthz" >&2; cat "$work/console.log" >&2; exit 1; }

# Sign in through the form, so the console holds the staff member's Book Corners tokens.
jar="$work/cookies"
csrf=$(curl -s -c "$jar" -b "$jar" "$base/sign-in" | python3 -c '
import re, sys
m = re.search(r"name=\"csrf\" value=\"([^\"]*)\"", sys.stdin.read())
print(m.group(1) if m else "")')
[ -n "$csrf" ] || { echo "no csrf field on /sign-in" >&2; exit 1; }
curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$csrf" --data-urlencode "login=staff" \
  --data-urlencode "password=staff-demo-password" "$base/sign-in"
grep -q bc_session "$jar" || { echo "signing in as staff gave no session cookie" >&2; exit 1; }

# COUNT pending libraries, from the sandbox's API.
access=$(curl -s -X POST -H 'Content-Type: application/json' \
  -d '{"username":"staff","password":"staff-demo-password"}' "$api/auth/login" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["access"])')
slugs="$work/slugs"
: >"$slugs"
page=1
while [ "$(wc -l <"$slugs")" -lt "$count" ]; do
  # A page past the last answers the last page again, so stop after the one without a next.
  more=$(curl -s -H "Authorization: Bearer $access" "$api/libraries/moderation/pending?page=$page&page_size=50" |
    python3 -c 'import json, sys
answer = json.load(sys.stdin)
with open(sys.argv[1], "a") as out:
    for item in answer["items"]: print(item["slug"], file=out)
print(1 if answer["pagination"]["has_next"] else 0)' "$slugs")
  if [ "$more" = 0 ] && [ "$(wc -l <"$slugs")" -lt "$count" ]; then
    echo "only $(wc -l <"$slugs") pending libraries, $count wanted" >&2
    exit 1
  fi
  page=$((page + 1))
done

# Queue the approvals in one transaction and wait for the runner to finish them.
python3 - "$work/console.sqlite" "$slugs" "$count" "$timeout" <<'PY'
import datetime, sqlite3, sys, time, uuid

path, slugs_file, count, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
slugs = [line.strip() for line in open(slugs_file) if line.strip()][:count]
db = sqlite3.connect(path, timeout=30, isolation_level=None)
row = db.execute("SELECT staffId FROM session WHERE username = 'staff' ORDER BY createdAt DESC LIMIT 1").fetchone()
if row is None:
    sys.exit("no session of staff in the console database")
actor = row[0]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
run = uuid.uuid4().hex[:8]
rows = [
    (f"benchmark-{run}-{i}", actor, "staff", "library", slug, "pending", "approved", "", f"benchmark-{run}-{i}",
     "127.0.0.1", "benchmark", "queued", 0, now, now, now)
    for i, slug in enumerate(slugs)
]
db.execute("BEGIN IMMEDIATE")
db.executemany(
    """INSERT INTO action (idempotencyKey, actorId, actorUsername, targetKind, targetKey, statusSeen, statusWanted,
       reason, requestId, clientAddress, userAgent, state, attempts, nextAttemptAt, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", rows)
db.execute("COMMIT")
start = time.monotonic()
ids = f"benchmark-{run}-%"
done_states = "('applied', 'conflict', 'failed', 'cancelled')"
while True:
    left = db.execute(f"SELECT COUNT(*) FROM action WHERE idempotencyKey LIKE ? AND state NOT IN {done_states}", (ids,)).fetchone()[0]
    if left == 0:
        break
    if time.monotonic() - start > timeout:
        states = db.execute("SELECT state, COUNT(*) FROM action WHERE idempotencyKey LIKE ? GROUP BY state", (ids,)).fetchall()
        sys.exit(f"timed out after {timeout:.0f} s with {left} of {len(rows)} unfinished: {states}")
    time.sleep(0.05)
elapsed = time.monotonic() - start
applied = db.execute("SELECT COUNT(*) FROM action WHERE idempotencyKey LIKE ? AND state = 'applied'", (ids,)).fetchone()[0]
print(f"decisions: {len(rows)} in {elapsed:.2f} s = {len(rows) / elapsed:.1f} per second "
      f"(applied {applied}, other {len(rows) - applied})")
PY
