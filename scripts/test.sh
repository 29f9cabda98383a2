#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what the tests need when it is
# missing, then runs every test. Debian packages: libsqlite3-dev (GRDB), chromium and
# chromium-driver (the browser tests), poppler-utils (the printed summary read back), python3-icalendar (the calendar feed's parser); from
# PyPI, axe-playwright-python (axe-core 4, for the accessibility tests).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
dpkg -s libsqlite3-dev >/dev/null 2>&1 || missing+=(libsqlite3-dev)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
# The printed audit summary is read back from Chromium's PDF (pdftotext, pdfinfo).
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
# The calendar feed's tests parse it with a real iCalendar parser (Debian's Python).
/usr/bin/python3 -c 'import icalendar' >/dev/null 2>&1 || missing+=(python3-icalendar)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

# The accessibility tests run axe-core 4 (with WCAG 2.2's target-size rule), which npm would
# give but this network does not reach: PyPI's axe-playwright-python wheel carries axe.min.js
# 4.12 (installed without its Playwright dependency).
if ! python3 -c 'import axe_playwright_python' >/dev/null 2>&1; then
  echo "Installing: axe-playwright-python (axe-core 4 for the accessibility tests)"
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --user --no-deps axe-playwright-python
fi
AXE_CORE_JS="$(python3 -c 'import axe_playwright_python, os; print(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js"))')"
export AXE_CORE_JS

# The code is formatted with the toolchain's swift-format (.swift-format; the generated client
# aside): unformatted code fails here, before anything is built. `scripts/format.sh` fixes it.
swift format lint --strict --parallel --configuration .swift-format $(scripts/format.sh --list)
echo "swift-format: every hand-written Swift file is formatted"

# The crash-recovery test runs the real binary (kills it, restarts it): build it first.
swift build --product console
swift build --build-tests
# At most TEST_WIDTH tests at once (default 4). Every suite starts servers and seeds a
# sandbox; all 260 at once on two cores made calls time out and held 2 300 descriptors
# open. 6 at once held about 150; on a clean clone it also left timing-bound tests (the
# HTTP fuzz's 8-s limit for an answer, a lease outliving a slow PATCH) short of time. `swift test` has no
# flag for Swift Testing's width, so the test binary is run directly; arguments such as
# `--filter Name` pass through.
tests="$(swift build --show-bin-path)/BookCornersConsolePackageTests.xctest"
if [ -x "$tests" ]; then
  "$tests" --testing-library swift-testing --experimental-maximum-parallelization-width "${TEST_WIDTH:-4}" "$@"
else
  swift test --skip-build "$@"
fi
