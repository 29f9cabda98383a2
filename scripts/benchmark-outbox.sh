#!/usr/bin/env bash
# Outbox delivery benchmark (docs/benchmarks.md): queues COUNT messages and lets one dispatcher
# deliver them to the sandbox's APNs stand-in, a separate `console sandbox` process, over one
# HTTP/2 connection with TLS. Release builds of both.
#   scripts/benchmark-outbox.sh [COUNT ...]      (default: 1000 5000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-1000 5000 10000}")
[ $# -eq 0 ] && counts=(1000 5000 10000)
swift build -c release --product console >/dev/null
swift build -c release --product outbox-benchmark >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'kill "$sandbox" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
apns_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/console" sandbox --port "$port" --apns-port "$apns_port" --sandbox-database "$work/sandbox.sqlite" --libraries 25 \
  --log-level warning >"$work/sandbox.log" 2>&1 &
sandbox=$!
for _ in $(seq 100); do grep -q "APNs stand-in:" "$work/sandbox.log" && break; sleep 0.1; done
ids="$work/apns/key.json"
key_id=$(python3 -c "import json; print(json.load(open('$ids'))['keyID'])")
team_id=$(python3 -c "import json; print(json.load(open('$ids'))['teamID'])")
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
for count in "${counts[@]}"; do
  curl -s -X DELETE "http://127.0.0.1:$port/apns/faults" >/dev/null
  ${OUTBOX_WRAP:-} "$bin/outbox-benchmark" "$count" "$work/console-$count.sqlite" "https://127.0.0.1:$apns_port" "$work/apns/ca.pem" \
    "$work/apns/AuthKey.p8" "$key_id" "$team_id"
done
echo "stand-in received: $(curl -s "http://127.0.0.1:$port/apns/pushes.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])') pushes"
echo "sandbox peak memory: $(grep VmHWM /proc/$sandbox/status | awk '{print $2/1024 " MB"}')"
