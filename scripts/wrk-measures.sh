# Sourced by the page benchmarks (benchmark-pages.sh, benchmark-render.sh): wrk's requests per
# second at $connections, and its p50 in milliseconds at one connection, each for $duration.
rate() { wrk -t1 -c"$connections" -d"$duration" "$@" | awk '/Requests\/sec/ { printf "%d", $2 }'; }
p50() {
  wrk -t1 -c1 -d"$duration" --latency "$@" | awk '$1 == "50%" {
    v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v = v / 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v = v * 1000 }
    printf "%.2f", v }'
}
