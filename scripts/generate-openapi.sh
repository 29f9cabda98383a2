#!/usr/bin/env bash
# Regenerates Sources/BookCornersAPI/Generated from OpenAPI/openapi.json (the backend's own
# document, kept verbatim). The generated files are committed so that ordinary builds (and
# CI) never compile the generator. See scripts/prepare-openapi.py for the one rewrite made.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/prepare-openapi.py OpenAPI/openapi.json OpenAPI/openapi.generator.json
rm -f Sources/BookCornersAPI/Generated/*.swift
swift run --package-path Tools/GenerateOpenAPI swift-openapi-generator generate \
  --config Sources/BookCornersAPI/Generated/openapi-generator-config.yaml \
  --output-directory Sources/BookCornersAPI/Generated \
  OpenAPI/openapi.generator.json
# Swift 6.3 warns about every unused `public import` in the generated files (the generator
# silences that only for compilers >= 6.4). Plain imports are public in Swift 6 mode anyway.
sed -i -e 's/^@_spi(Generated) public import /@_spi(Generated) import /' -e 's/^public import /import /' \
  Sources/BookCornersAPI/Generated/*.swift
