#!/usr/bin/env bash
# Formats every hand-written Swift file with the toolchain's swift-format and the project's
# .swift-format (the generated client is left as generated). `--list` prints the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
files() { find Sources Tests Benchmarks Package.swift -name '*.swift' -not -path '*/Generated/*' | sort; }
if [ "${1:-}" = "--list" ]; then files; exit 0; fi
swift format format --in-place --parallel --configuration .swift-format $(files)
