#!/usr/bin/env python3
"""The mirror's read budget, measured (issue 20): backend reads per rate-limit scope and
window however many staff browse, how fast a change made outside the console shows, and
the issue's acceptance check.

Each run starts its own `console demo` (fresh data directory, real 300-s windows, default
budgets, `--request-log`), signs staff in with their own cookie jars through the console's
forms, and reads the sandbox's request log afterwards. The script's own calls to the sandbox
API (the "curl" approvals) send `X-Forwarded-For: 10.77.0.N`, so the sandbox counts them as
another client, as a colleague's curl from another machine would be; the tables count only
the console's client (127.0.0.1). A debug build is fine: the read counts do not depend on speed.

Usage (after `swift build`):
  python3 scripts/benchmark-mirror-reads.py reads [--staff 0,1,3,10] [--windows 1] [--pace 0.3]
  python3 scripts/benchmark-mirror-reads.py freshness [--samples 20] [--staff 0]
  python3 scripts/benchmark-mirror-reads.py acceptance
Common: [--console .build/debug/console] [--base-port 8300] [--keep DIR]
"""
import argparse
import collections
import http.cookiejar
import json
import math
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from consolekit import SLUG_LINK, forms, hidden, percentile

WINDOW = 300                      # the real backend's window; the demo keeps it
JITTER = 2                        # reads a scope may differ by between runs (a read due at a window's edge)
BUDGET = 30                       # the mirror's default budget per scope and window (50 % of 60)
CONSOLE_CLIENT = "127.0.0.1"      # the rate-limit identity of the console's own reads
LIMITING = "is limiting how fast" # BackendError.rateLimited's text, on any page that shows it
STAFF_LOGIN, STAFF_PASSWORD = "staff", "staff-demo-password"   # SeedAccounts: the console's staff
OUTSIDE_LOGIN = "maria"           # SeedAccounts: a second staff account, same demo password
SCOPES = [
    "api-library-moderation-list", "api-library-moderation-detail", "api-report-moderation-list",
    "api-photo-moderation-list", "api-moderation-summary", "api-statistics", "api-library-list", "api-auth-me",
]
CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message):
    print(time.strftime("%H:%M:%S ", time.gmtime()) + message, file=sys.stderr, flush=True)


# MARK: the demo

class Demo:
    """One `console demo` on its own ports and data directory."""

    def __init__(self, binary, port, directory, name):
        self.binary, self.port, self.sandbox_port = binary, port, port + 1
        self.directory, self.name = directory, name
        self.request_log = os.path.join(directory, "requests.ndjson")
        self.database = os.path.join(directory, "console.sqlite")
        self.url = f"http://127.0.0.1:{port}"
        self.api = f"http://127.0.0.1:{port + 1}/api/v1/"
        self.process = None

    def start(self):
        os.makedirs(self.directory, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CONSOLE_", "SANDBOX_"))}
        self.output = open(os.path.join(self.directory, "demo.out"), "w")
        self.process = subprocess.Popen(
            [self.binary, "demo", "--port", str(self.port), "--sandbox-port", str(self.sandbox_port),
             "--database", self.database, "--sandbox-database", os.path.join(self.directory, "sandbox.sqlite"),
             "--request-log", self.request_log, "--log-level", "warning",
             "--templates", os.path.join(CHECKOUT, "Templates"), "--public", os.path.join(CHECKOUT, "Public")],
            stdout=self.output, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"{self.name}: the demo stopped at start-up; see {self.output.name}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise SystemExit(f"{self.name}: the demo did not answer within 180 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.output.close()

    def log_lines(self):
        with open(self.request_log) as lines:
            return [json.loads(line) for line in lines if line.strip()]


# MARK: a staff member in a browser

class Browser:
    """A cookie jar signed in to the console; counts what it saw."""

    def __init__(self, console_url):
        self.console = console_url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.page_views = 0
        self.limiting_pages = []
        self.failed_pages = []
        self.approvals = 0

    def get(self, path):
        try:
            with self.opener.open(self.console + path, timeout=60) as response:
                body = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as error:
            body, status = error.read().decode(errors="replace"), error.code
        self.page_views += 1
        if LIMITING in body:
            self.limiting_pages.append(path)
        if status != 200:
            self.failed_pages.append((path, status))
        return body

    def post(self, path, fields):
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.console + path, data=data, method="POST")
        with self.opener.open(request, timeout=60) as response:
            body = response.read().decode()
        if LIMITING in body:
            self.limiting_pages.append("POST " + path)
        return body

    def sign_in(self):
        page = self.get("/sign-in")
        after = self.post("/sign-in", {"csrf": hidden(page)["csrf"], "next": "/", "login": STAFF_LOGIN, "password": STAFF_PASSWORD})
        if 'action="/sign-in"' in after:
            raise SystemExit("sign-in failed: " + re.sub(r"\s+", " ", after)[:300])

    def approve_first_pending(self):
        """Approves the first library of the pending page through its form (as demo-decisions.py)."""
        slugs = SLUG_LINK.findall(self.get("/libraries?status=pending"))
        for slug in slugs:
            detail = self.get("/libraries/" + slug)
            for action, form in forms(detail, r"/libraries/[^\"]+/decide"):
                if 'value="approve"' in form:
                    self.post(action, hidden(form))
                    self.approvals += 1
                    return slug
        return None


def browse(browser, until, pace, approve_every, stop):
    """Every page, over and over, one view per `pace` seconds; approves one library every
    `approve_every` seconds when given."""
    tour = ["/", "/libraries", "/libraries?status=pending", "/libraries?status=approved", "/libraries?status=rejected",
            "/libraries?status=all", "/libraries?q=book", "/libraries?status=approved&page=2", "LIBRARY",
            "/reports", "/photos", "/statistics", "/audit", "/outbox"]
    slugs = []
    next_approval = time.time() + (approve_every or 0) / 2
    index = 0
    while time.time() < until and not stop.is_set():
        started = time.time()
        if approve_every and started >= next_approval:
            browser.approve_first_pending()
            next_approval += approve_every
        else:
            path = tour[index % len(tour)]
            index += 1
            if path == "LIBRARY":
                if not slugs:
                    continue
                path = "/libraries/" + random.choice(slugs)
            body = browser.get(path)
            if path.startswith("/libraries?"):
                slugs = SLUG_LINK.findall(body) or slugs
        time.sleep(max(0.0, pace - (time.time() - started)))


# MARK: the sandbox's API, as another staff member's curl

class OutsideStaff:
    """Another staff account calling the sandbox's API directly, from "another address"."""

    def __init__(self, api):
        self.api = api
        self.address = 0
        self.token = None

    def call(self, method, path, body=None):
        try:
            return self.send(method, path, body)
        except urllib.error.HTTPError as error:
            # The access token lives 5 minutes: sign in again, as curl's user would.
            if error.code != 401 or path == "auth/login":
                raise
            self.sign_in()
            return self.send(method, path, body)

    def send(self, method, path, body=None):
        # A new address per call: the script's calls never spend the console's budget, and
        # twenty approvals never meet the 10-writes-per-window limit of one address.
        self.address += 1
        headers = {"X-Forwarded-For": f"10.77.{self.address // 250}.{self.address % 250 + 1}", "Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.api + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read().decode())

    def sign_in(self):
        self.token = None
        self.token = self.send("POST", "auth/login", {"username": OUTSIDE_LOGIN, "password": STAFF_PASSWORD})["access"]

    def pending_slugs(self):
        return [item["slug"] for item in self.call("GET", "libraries/moderation/pending?page_size=50")["items"]]

    def approve(self, slug):
        return self.call("PATCH", "libraries/moderation/" + urllib.parse.quote(slug), {"status": "approved"})


# MARK: counting the log

def complete_windows(start, end):
    """Windows (their start, in seconds) lying wholly inside [start, end]."""
    first = math.ceil(start / WINDOW) * WINDOW
    return list(range(first, math.floor(end) - WINDOW + 1, WINDOW))


def reads_per_window(lines, windows):
    """{window: {scope: reads}} for the console's reads, and {window: 429s} for all its requests."""
    reads = {w: collections.Counter() for w in windows}
    limited = collections.Counter()
    for line in lines:
        if line["client"] != CONSOLE_CLIENT or line["window"] not in reads:
            continue
        if line["kind"] == "read":
            reads[line["window"]][line["scope"]] += 1
        if line["status"] == 429:
            limited[line["window"]] += 1
    return reads, limited


# MARK: the three modes

def run_reads(args, staff_counts):
    """One demo per staff count, side by side, browsing over the same windows."""
    runs = []
    root = args.keep or tempfile.mkdtemp(prefix="mirror-reads-")
    for offset, count in enumerate(staff_counts):
        demo = Demo(args.console, args.base_port + 10 * offset, os.path.join(root, f"staff-{count}"), f"N={count}")
        runs.append({"staff": count, "demo": demo})
    try:
        for run in runs:
            run["demo"].start()
        # Nobody signed in: the mirror waits. So N=0 signs in once and then leaves the console alone.
        for run in runs:
            run["browsers"] = [Browser(run["demo"].url) for _ in range(max(1, run["staff"]))]
            for browser in run["browsers"]:
                browser.sign_in()
        start = time.time()
        end = (int(start) // WINDOW + 1 + args.windows) * WINDOW + 2
        log(f"browsing from {time.strftime('%H:%M:%S', time.gmtime(start))} to {time.strftime('%H:%M:%S', time.gmtime(end))} UTC ({end - start:.0f} s)")
        stop = threading.Event()
        threads = []
        for run in runs:
            if run["staff"] == 0:
                continue
            for index, browser in enumerate(run["browsers"]):
                # One of them approves 3-4 libraries per window through the forms.
                approve_every = WINDOW / 3.5 if index == 0 else None
                thread = threading.Thread(target=browse, args=(browser, end, args.pace, approve_every, stop), daemon=True)
                thread.start()
                threads.append(thread)
        for thread in threads:
            thread.join()
        finished = time.time()
        windows = complete_windows(start, min(finished, end))
        results = []
        for run in runs:
            lines = run["demo"].log_lines()
            reads, limited = reads_per_window(lines, windows)
            browsers = run["browsers"] if run["staff"] else []
            views = sum(b.page_views for b in browsers)
            results.append({
                "staff": run["staff"], "windows": windows, "reads": {w: dict(reads[w]) for w in windows},
                "limited_in_windows": {w: limited[w] for w in windows},
                "429s_whole_run": sum(1 for line in lines if line["client"] == CONSOLE_CLIENT and line["status"] == 429),
                "page_views": views, "views_per_second": round(views / (finished - start), 1),
                "limiting_pages": sum(len(b.limiting_pages) for b in browsers),
                "failed_pages": sum(len(b.failed_pages) for b in browsers),
                "approvals": sum(b.approvals for b in browsers),
                "writes_in_windows": sum(1 for line in lines if line["client"] == CONSOLE_CLIENT and line["kind"] == "write" and line["window"] in windows),
                "seconds": round(finished - start),
            })
        return results, root
    finally:
        for run in runs:
            run["demo"].stop()


def print_reads(results):
    print("| staff | window (UTC) | " + " | ".join(s.replace("api-", "") for s in SCOPES) + " | page views (per s) | pages saying limiting | failed pages | approvals | console 429s |")
    print("|---" * (len(SCOPES) + 7) + "|")
    for result in results:
        for window in result["windows"]:
            reads = result["reads"][window]
            print(f"| {result['staff']} | {time.strftime('%H:%M', time.gmtime(window))} | "
                  + " | ".join(str(reads.get(s, 0)) for s in SCOPES)
                  + f" | {result['page_views']} ({result['views_per_second']}) | {result['limiting_pages']} | {result['failed_pages']}"
                  + f" | {result['approvals']} | {result['limited_in_windows'][window]} (run: {result['429s_whole_run']}) |")


def check_reads(results, baseline_staff=0):
    """The figures the issue asks for: every scope within budget, the same for all staff counts."""
    problems = []
    baseline = next((r for r in results if r["staff"] == baseline_staff), results[0])
    for result in results:
        for window in result["windows"]:
            reads = result["reads"][window]
            for scope in SCOPES:
                if reads.get(scope, 0) > BUDGET and scope != "api-auth-me":
                    problems.append(f"N={result['staff']}: {scope} read {reads[scope]} times in the window at {window} (budget {BUDGET})")
                base = baseline["reads"].get(window, {}).get(scope, 0)
                # Jitter: a read due at a window's edge may fall either side. Each approval adds its
                # check before sending (a detail read); auth/me is the staff re-check, once per staff
                # member and 5 minutes while someone browses, not a page's read.
                allowed = JITTER + (result["approvals"] if scope == "api-library-moderation-detail" else 0)
                if scope != "api-auth-me" and abs(reads.get(scope, 0) - base) > allowed:
                    problems.append(f"N={result['staff']}: {scope} {reads.get(scope, 0)} reads vs {base} with N={baseline['staff']}")
        if result["limiting_pages"]:
            problems.append(f"N={result['staff']}: {result['limiting_pages']} pages said Book Corners is limiting")
    return problems


def measure_freshness(demo, samples, stop_browsing, browser):
    """Approves pending libraries at the sandbox as another staff account and times how long
    each takes to leave the console's pending page."""
    outside = OutsideStaff(demo.api)
    outside.sign_in()
    delays, approved = [], []
    while len(delays) < samples:
        shown = set(SLUG_LINK.findall(browser.get("/libraries?status=pending")))
        candidates = [slug for slug in outside.pending_slugs() if slug in shown and slug not in approved]
        if not candidates:
            log("no pending library shows on both; waiting")
            time.sleep(5)
            continue
        slug = random.choice(candidates)
        outside.approve(slug)
        changed = time.time()
        while True:
            time.sleep(0.5)
            if slug not in SLUG_LINK.findall(browser.get("/libraries?status=pending")):
                break
            if time.time() - changed > 300:
                log(f"{slug} still pending after 300 s")
                break
        delay = time.time() - changed
        delays.append(delay)
        approved.append(slug)
        log(f"sample {len(delays)}/{samples}: {slug} left the pending page after {delay:.1f} s")
        time.sleep(random.uniform(0, 10))
    stop_browsing.set()
    return delays, approved


def observed_entries(browser, slug):
    """How many `observed.library.approved` rows /audit?outcome=observed lists for `slug`."""
    page = browser.get("/audit?" + urllib.parse.urlencode({"outcome": "observed", "q": slug}))
    return page.count("<code>observed.library.approved</code>")


def wait_for_observed(browser, slugs, timeout=120):
    deadline = time.time() + timeout
    while True:
        counts = {slug: observed_entries(browser, slug) for slug in slugs}
        if all(count == 1 for count in counts.values()) or time.time() > deadline:
            return counts
        time.sleep(5)


def run_freshness(args):
    root = args.keep or tempfile.mkdtemp(prefix="mirror-freshness-")
    demo = Demo(args.console, args.base_port, os.path.join(root, "freshness"), "freshness")
    demo.start()
    try:
        watcher = Browser(demo.url)
        watcher.sign_in()
        stop = threading.Event()
        threads = []
        for _ in range(args.staff):
            browser = Browser(demo.url)
            browser.sign_in()
            thread = threading.Thread(target=browse, args=(browser, time.time() + 3600, args.pace, None, stop), daemon=True)
            thread.start()
            threads.append(thread)
        delays, slugs = measure_freshness(demo, args.samples, stop, watcher)
        for thread in threads:
            thread.join()
        counts = wait_for_observed(watcher, slugs)
        return delays, counts
    finally:
        demo.stop()


def run_acceptance(args):
    """The issue's acceptance: 3 staff for 5 minutes beside an idle console, one curl approval."""
    root = args.keep or tempfile.mkdtemp(prefix="mirror-acceptance-")
    runs = [{"staff": n, "demo": Demo(args.console, args.base_port + 10 * i, os.path.join(root, f"staff-{n}"), f"N={n}")}
            for i, n in enumerate([0, 3])]
    verdicts = []
    busy = runs[1]
    try:
        for run in runs:
            run["demo"].start()
            run["browsers"] = [Browser(run["demo"].url) for _ in range(max(1, run["staff"]))]
            for browser in run["browsers"]:
                browser.sign_in()
        # Five minutes of browsing that hold one whole window: start just before a window begins.
        now = time.time()
        start = (int(now) // WINDOW + 1) * WINDOW - 5
        if start < now:
            start += WINDOW
        log(f"browsing starts at {time.strftime('%H:%M:%S', time.gmtime(start))} UTC (the next window starts 5 s later)")
        time.sleep(start - time.time())
        end = start + WINDOW + 8
        stop = threading.Event()
        threads = [threading.Thread(target=browse, args=(b, end, args.pace, None, stop), daemon=True) for b in busy["browsers"]]
        for thread in threads:
            thread.start()
        # One approval by curl, a minute in.
        time.sleep(60)
        outside = OutsideStaff(busy["demo"].api)
        outside.sign_in()
        watcher = Browser(busy["demo"].url)
        watcher.sign_in()
        slug = None
        while slug is None:
            shown = set(SLUG_LINK.findall(watcher.get("/libraries?status=pending")))
            slug = next((s for s in outside.pending_slugs() if s in shown), None)
            if slug is None:
                time.sleep(2)
        outside.approve(slug)
        changed = time.time()
        while slug in SLUG_LINK.findall(watcher.get("/libraries?status=pending")) and time.time() - changed < 120:
            time.sleep(0.5)
        delay = time.time() - changed
        for thread in threads:
            thread.join()
        windows = complete_windows(start, end)
        results = []
        for run in runs:
            reads, limited = reads_per_window(run["demo"].log_lines(), windows)
            browsers = run["browsers"] if run["staff"] else []
            results.append({"staff": run["staff"], "windows": windows, "reads": {w: dict(reads[w]) for w in windows},
                            "limited_in_windows": {w: limited[w] for w in windows}, "429s_whole_run": sum(limited.values()),
                            "page_views": sum(b.page_views for b in browsers), "views_per_second": round(sum(b.page_views for b in browsers) / (end - start), 1),
                            "limiting_pages": sum(len(b.limiting_pages) for b in browsers),
                            "failed_pages": sum(len(b.failed_pages) for b in browsers), "approvals": 0})
        print_reads(results)
        observed = wait_for_observed(watcher, [slug])[slug]
        limiting = results[1]["limiting_pages"]
        verdicts.append((limiting == 0, f"no page said limiting ({results[1]['page_views']} page views by 3 staff; {limiting} said it)"))
        diffs = {s: (results[1]["reads"][w].get(s, 0), results[0]["reads"][w].get(s, 0)) for w in windows for s in SCOPES}
        same = all(abs(a - b) <= JITTER for s, (a, b) in diffs.items() if s != "api-auth-me")
        verdicts.append((same and bool(windows), f"reads per scope in the whole window equal the idle console's (within {JITTER}; auth-me aside): "
                         + ", ".join(f"{s.replace('api-', '')} {a}/{b}" for s, (a, b) in diffs.items())))
        verdicts.append((delay <= 30, f"the curl approval of {slug} left the pending page after {delay:.1f} s"))
        verdicts.append((observed == 1, f"/audit?outcome=observed lists it {observed} time(s)"))
    finally:
        for run in runs:
            run["demo"].stop()
    verify = subprocess.run([args.console, "audit", "verify", "--database", busy["demo"].database], capture_output=True, text=True)
    verdicts.append((verify.returncode == 0 and verify.stdout.startswith("OK"), "console audit verify: " + (verify.stdout + verify.stderr).strip()))
    for ok, text in verdicts:
        print(("PASS " if ok else "FAIL ") + text)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return all(ok for ok, _ in verdicts)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["reads", "freshness", "acceptance"])
    parser.add_argument("--console", default=".build/debug/console")
    parser.add_argument("--base-port", type=int, default=8300)
    parser.add_argument("--staff", default=None, help="reads: staff counts (0,1,3,10); freshness: staff browsing meanwhile (0)")
    parser.add_argument("--windows", type=int, default=1, help="reads: whole windows to browse through (1)")
    parser.add_argument("--pace", type=float, default=0.3, help="seconds per page view per staff member (0.3)")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--keep", help="keep the demos' data (request logs, databases) in this directory")
    args = parser.parse_args()
    if not os.path.exists(args.console):
        raise SystemExit(f"{args.console} is missing: run `swift build` first")
    if args.mode == "reads":
        counts = [int(n) for n in (args.staff or "0,1,3,10").split(",")]
        results, root = run_reads(args, counts)
        print_reads(results)
        print(json.dumps(results, indent=1))
        problems = check_reads(results, baseline_staff=counts[0])
        print("\n".join(problems) if problems else "OK: every scope within budget and the same for every staff count")
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        sys.exit(1 if problems else 0)
    elif args.mode == "freshness":
        args.staff = int(args.staff or 0)
        delays, counts = run_freshness(args)
        print(f"samples {len(delays)}: p50 {statistics.median(delays):.1f} s, p95 {percentile(delays, 0.95):.1f} s, max {max(delays):.1f} s")
        print("delays: " + ", ".join(f"{d:.1f}" for d in delays))
        once = sum(1 for c in counts.values() if c == 1)
        print(f"/audit?outcome=observed lists {once} of {len(counts)} approvals exactly once: {counts}")
        sys.exit(0 if percentile(delays, 0.95) <= 30 and once == len(counts) else 1)
    else:
        sys.exit(0 if run_acceptance(args) else 1)


if __name__ == "__main__":
    main()
