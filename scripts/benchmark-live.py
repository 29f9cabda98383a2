#!/usr/bin/env python3
"""The live queue's benchmark (issue 31): 50 open pages follow /events on one console; a second
`console serve` on the same database takes the decisions and claims. It measures the time from
each change to its event on each of the 50 streams (p50, p95), the console's memory per open
stream, its CPU while the 50 streams sit idle, and (issue 48) the CPU each change costs it per open
page, above that idle CPU: an open page receives the change's event and fetches nothing.

Usage: python3 scripts/benchmark-live.py --console .build/release/console [--streams 50] [--rounds 10]

With --hold SECONDS (issue 46) it measures instead what N held streams cost the pages: the
latency of one signed-in page (--page-path, one request every --page-interval s from its own
thread, with the streams' session) with no streams (quiet, then with changes arriving), the
console's RSS before and after N idle streams open, then the same page while the N streams are
held for SECONDS and a change (claims and releases, a decision every --decision-every s) arrives
about once a second through the second process; the events each stream received and the
console's CPU seconds over the hold.

    python3 scripts/benchmark-live.py --console .build/release/console --streams 200 --hold 600 --page-path /libraries
"""
import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from consolekit import ConsoleBrowser, free_port, hidden, log, percentile, wait_http  # noqa: E402

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSWORD = "staff-demo-password"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Stream(threading.Thread):
    """One open page's EventSource: every item event, with when it arrived (and every event's
    name, with when it arrived: `events`)."""

    def __init__(self, port, cookie, timeout=600):
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.connection.request("GET", "/events", headers={"Cookie": cookie, "Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise SystemExit(f"/events answered {self.response.status}: {self.response.read()[:200]!r}")
        self.arrivals = []    # (time, key, data)
        self.events = []      # (time, event name)
        self.ended = None     # when the stream ended, and why
        self.lock = threading.Lock()

    def run(self):
        data, name = [], "message"
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    self.ended = (time.time(), "closed by the console")
                    return
                line = line.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].strip())
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line == "" and data:
                    now = time.time()
                    with self.lock:
                        self.events.append((now, name))
                    if name in ("item", "message"):
                        payload = json.loads("\n".join(data))
                        with self.lock:
                            self.arrivals.append((now, payload.get("key"), payload))
                    data, name = [], "message"
        except (OSError, ValueError) as error:
            self.ended = (time.time(), repr(error))
            return

    def events_between(self, start, end, names=None):
        with self.lock:
            return sum(1 for t, n in self.events if start <= t <= end and (names is None or n in names))

    def first_after(self, key, since):
        with self.lock:
            return next((t for t, k, _ in self.arrivals if k == key and t >= since), None)


def start(arguments, name, directory, url):
    process = subprocess.Popen(arguments, stdout=open(os.path.join(directory, name + ".log"), "w"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    wait_http(url, process, 240, name)
    return process


def cookie_of(browser):
    """The Cookie header the browser's jar would send."""
    return "; ".join(f"{c.name}={c.value}" for handler in browser.opener.handlers if hasattr(handler, "cookiejar") for c in handler.cookiejar)


class PageSampler(threading.Thread):
    """One signed-in page, asked every `interval` s on its own connection each time (as a browser
    without keep-alive), its latency recorded under the phase set at the time."""

    def __init__(self, port, cookie, path, interval):
        super().__init__(daemon=True)
        self.port, self.cookie, self.path, self.interval = port, cookie, path, interval
        self.phase = None
        self.samples = {}     # phase → [seconds]
        self.times = {}       # phase → [(when, seconds)]
        self.failures = {}    # phase → [(status, excerpt)]
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.is_set():
            phase = self.phase
            if phase is None:
                time.sleep(self.interval)
                continue
            started = time.perf_counter()
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                connection.request("GET", self.path, headers={"Cookie": self.cookie, "Accept": "text/html"})
                response = connection.getresponse()
                body = response.read()
                elapsed = time.perf_counter() - started
                connection.close()
                if response.status == 200 and b'action="/sign-in"' not in body:
                    self.samples.setdefault(phase, []).append(elapsed)
                    self.times.setdefault(phase, []).append((time.time(), elapsed))
                else:
                    self.failures.setdefault(phase, []).append((response.status, body[:120]))
            except OSError as error:
                self.failures.setdefault(phase, []).append((None, repr(error)))
                elapsed = time.perf_counter() - started
            time.sleep(max(0.0, self.interval - elapsed))


class Changer(threading.Thread):
    """About one change a second through the second console: claims and releases of `claimable`
    in turn, and a decision (approve) on the next of `decidable` every `decision_every` s. Sent as
    a browser's form posts, redirects not followed (so no page is rendered for them)."""

    def __init__(self, port, cookie, csrf, claimable, decidable, decision_every, interval=1.0):
        super().__init__(daemon=True)
        self.port, self.cookie, self.csrf = port, cookie, csrf
        self.claimable, self.decidable = list(claimable), list(decidable)
        self.decision_every, self.interval = decision_every, interval
        self.running = threading.Event()
        self.stopped = threading.Event()
        self.sent = []        # (time, what, slug, status)
        self.held = set()

    def post(self, path, fields):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("POST", path, body=urllib.parse.urlencode(fields),
                           headers={"Cookie": self.cookie, "Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        response.read()
        connection.close()
        return response.status

    def get(self, path):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("GET", path, headers={"Cookie": self.cookie})
        response = connection.getresponse()
        body = response.read().decode()
        connection.close()
        return body

    def run(self):
        turn, last_decision = 0, time.time()
        while not self.stopped.is_set():
            if not self.running.is_set():
                time.sleep(0.1)
                continue
            tick = time.time()
            try:
                if self.decidable and tick - last_decision >= self.decision_every:
                    slug = self.decidable.pop(0)
                    detail = self.get(f"/libraries/{slug}")
                    key = re.search(r'name="key" value="([^"]+)-approve"', detail)
                    status = None if key is None else self.post(f"/libraries/{slug}/decide", {
                        "csrf": hidden(detail)["csrf"], "key": key.group(1) + "-approve", "seen": "pending", "decision": "approve"})
                    self.sent.append((tick, "decision", slug, status))
                    last_decision = tick
                else:
                    slug = self.claimable[turn % len(self.claimable)]
                    turn += 1
                    what = "release" if slug in self.held else "claim"
                    status = self.post(f"/libraries/{slug}/{what}", {"csrf": self.csrf, "back": f"/libraries/{slug}"})
                    (self.held.discard if what == "release" else self.held.add)(slug)
                    self.sent.append((tick, what, slug, status))
            except (OSError, KeyError) as error:
                self.sent.append((tick, "error", "", repr(error)))
            time.sleep(max(0.0, self.interval - (time.time() - tick)))

    def between(self, start, end):
        return [entry for entry in self.sent if start <= entry[0] <= end]


def machine_busy():
    """CPU seconds the whole machine spent busy (not idle or waiting) since boot."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def summary(values):
    return (f"{percentile(values, 0.5) * 1000:.1f}", f"{percentile(values, 0.95) * 1000:.1f}", f"{max(values) * 1000:.1f}") if values else ("–", "–", "–")


def held(args, one, two, one_port, two_port, staff, maria):
    """Issue 46: the page's latency with no streams, then with `args.streams` held for `args.hold` s."""
    deadline = time.time() + 240
    pattern = r'formaction="/libraries/([^"/]+)/claim"'
    needed = args.claimable + args.hold // args.decision_every + args.baseline // args.decision_every + 4
    while time.time() < deadline and len(set(re.findall(pattern, maria.get("/libraries?page_size=50")))) < needed:
        time.sleep(2)
    slugs = list(dict.fromkeys(re.findall(pattern, maria.get("/libraries?page_size=50"))))
    if len(slugs) < args.claimable + 2:
        raise SystemExit(f"only {len(slugs)} libraries to change")
    log(f"{len(slugs)} pending libraries listed: {args.claimable} for claims and releases, {len(slugs) - args.claimable} to decide")
    csrf = re.search(r'name="csrf" value="([^"]+)"', maria.get("/libraries?page_size=50")).group(1)
    changer = Changer(two_port, cookie_of(maria), csrf, slugs[:args.claimable], slugs[args.claimable:], args.decision_every)
    changer.start()
    cookie = cookie_of(staff)
    sampler = PageSampler(one_port, cookie, args.page_path, args.page_interval)
    sampler.start()
    time.sleep(5)
    phases = {}

    def phase(name, seconds, changes):
        changer.running.set() if changes else changer.running.clear()
        cpu_start, start, busy_start, two_start = cpu_seconds(one.pid), time.time(), machine_busy(), cpu_seconds(two.pid)
        sampler.phase = name
        log(f"phase '{name}': {seconds} s, changes {'on' if changes else 'off'}")
        time.sleep(seconds)
        sampler.phase = None
        end = time.time()
        changer.running.clear()
        phases[name] = dict(start=start, end=end, cpu=cpu_seconds(one.pid) - cpu_start, rss=rss_kib(one.pid), load=open("/proc/loadavg").read().split()[:3],
                            busy=machine_busy() - busy_start, two_cpu=cpu_seconds(two.pid) - two_start)

    phase("0 streams, no changes", args.baseline, False)
    phase("0 streams, changes ~1/s", args.baseline, True)
    time.sleep(10)
    rss_before = rss_kib(one.pid)
    opened = time.time()
    streams = [Stream(one_port, cookie, timeout=args.hold + 300) for _ in range(args.streams)]
    for stream in streams:
        stream.start()
    log(f"{args.streams} streams opened in {time.time() - opened:.1f} s")
    time.sleep(10)
    rss_open = rss_kib(one.pid)
    log(f"{args.streams} idle streams: RSS {rss_before} → {rss_open} KiB")
    hold_name = f"{args.streams} streams held, changes ~1/s"
    phase(hold_name, args.hold, True)
    hold = phases[hold_name]
    time.sleep(3)
    sampler.stopped.set()
    changer.stopped.set()
    ended = [s for s in streams if s.ended is not None]
    item_counts = sorted(s.events_between(hold["start"], hold["end"] + 3, ("item", "message")) for s in streams)
    all_counts = sorted(s.events_between(hold["start"], hold["end"] + 3) for s in streams)
    print(f"Held streams benchmark: {args.streams} streams on one console ({args.page_path} every {args.page_interval} s from one thread, "
          f"same session), changes through a second console process on the same database")
    print("| phase | page p50 | page p95 | slowest | pages measured | failed | changes sent (claim/release/decision) | console CPU s | CPU s per s | RSS at end |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, measured in phases.items():
        values = sampler.samples.get(name, [])
        p50, p95, slowest = summary(values)
        sent = changer.between(measured["start"], measured["end"])
        kinds = "/".join(str(sum(1 for entry in sent if entry[1] == kind)) for kind in ("claim", "release", "decision"))
        bad = sum(1 for entry in sent if entry[3] not in (302, 303))
        wall = measured["end"] - measured["start"]
        print(f"| {name} ({wall:.0f} s) | {p50} ms | {p95} ms | {slowest} ms | {len(values)} | {len(sampler.failures.get(name, []))} | "
              f"{len(sent)} ({kinds}; {bad} not answered 302/303) | {measured['cpu']:.1f} | {measured['cpu'] / wall:.3f} | {measured['rss']} KiB |")
    print(f"| RSS with 0 streams → {args.streams} idle streams open (10 s after) | {rss_before} → {rss_open} KiB: "
          f"{(rss_open - rss_before) / args.streams:.1f} KiB per stream |")
    print(f"| item events per stream during the hold | min {item_counts[0]}, median {item_counts[len(item_counts) // 2]}, max {item_counts[-1]} |")
    print(f"| all events per stream during the hold (item, counts, submitted) | min {all_counts[0]}, median {all_counts[len(all_counts) // 2]}, max {all_counts[-1]} |")
    print(f"| streams that ended before the end | {len(ended)} {[s.ended for s in ended[:3]]} |")
    for name, failures in sampler.failures.items():
        print(f"page failures in '{name}': {failures[:3]}")
    statuses = {}
    for entry in changer.sent:
        statuses[(entry[1], entry[3])] = statuses.get((entry[1], entry[3]), 0) + 1
    print(f"changes by (kind, status): {statuses}")
    for name, measured in phases.items():
        timed = sampler.times.get(name, [])
        for minute in range(0, int(measured["end"] - measured["start"]), 60):
            part = [v for t, v in timed if measured["start"] + minute <= t < measured["start"] + minute + 60]
            if part:
                p50, p95, slowest = summary(part)
                print(f"'{name}' minute {minute // 60 + 1}: p50 {p50} ms, p95 {p95} ms, slowest {slowest} ms, {len(part)} pages")
    for name, measured in phases.items():
        print(f"machine during '{name}': {measured['busy']:.1f} CPU s busy in all ({os.cpu_count()} cores), of which the second console "
              f"{measured['two_cpu']:.1f} s and the console under test {measured['cpu']:.1f} s; load average at its end {' '.join(measured['load'])}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--console", required=True)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10, help="changes made through the second process (half claims, half decisions)")
    parser.add_argument("--idle", type=int, default=30, help="seconds the streams sit idle while CPU is measured")
    parser.add_argument("--hold", type=int, default=0, help="issue 46: hold the streams this long while pages are measured (0: the issue-31 benchmark)")
    parser.add_argument("--page-path", default="/libraries", help="with --hold: the signed-in page whose latency is measured")
    parser.add_argument("--page-interval", type=float, default=0.15, help="with --hold: seconds between page requests")
    parser.add_argument("--baseline", type=int, default=60, help="with --hold: seconds of each phase without streams (quiet, then changes)")
    parser.add_argument("--claimable", type=int, default=10, help="with --hold: libraries claimed and released in turn")
    parser.add_argument("--decision-every", type=int, default=60, help="with --hold: seconds between decisions (the backend allows 10 writes per 5 min)")
    parser.add_argument("--stream-limit", type=int, default=0,
                        help="--live-streams-per-session and --live-streams for the console (0: streams + 10 per session, the default total)")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="console-live-bench.")
    sandbox_port, one_port, two_port = free_port(), free_port(), free_port()
    database = os.path.join(directory, "console.sqlite")
    processes = []
    try:
        processes.append(start([args.console, "sandbox", "--bind", "127.0.0.1", "--port", str(sandbox_port), "--sandbox-database",
                                os.path.join(directory, "sandbox.sqlite"), "--no-apns-stand-in", "--log-level", "warning"],
                               "sandbox", directory, f"http://127.0.0.1:{sandbox_port}/api/v1/auth/me"))
        common = ["--bind", "127.0.0.1", "--database", database, "--backend-url", f"http://127.0.0.1:{sandbox_port}/api/v1/",
                  "--log-level", "warning", "--templates", os.path.join(CHECKOUT, "Templates"), "--public", os.path.join(CHECKOUT, "Public"),
                  "--no-metrics"] + (["--live-streams-per-session", str(args.stream_limit), "--live-streams-per-person", str(args.stream_limit), "--live-streams", str(args.stream_limit)]
                                     if args.stream_limit else ["--live-streams-per-session", str(args.streams + 10), "--live-streams-per-person", str(args.streams + 10)])
        one = start([args.console, "serve", "--port", str(one_port)] + common, "console-one", directory, f"http://127.0.0.1:{one_port}/healthz")
        processes.append(one)
        two = start([args.console, "serve", "--port", str(two_port)] + common, "console-two", directory, f"http://127.0.0.1:{two_port}/healthz")
        processes.append(two)
        staff = ConsoleBrowser(f"http://127.0.0.1:{one_port}")
        staff.sign_in("staff", PASSWORD)
        maria = ConsoleBrowser(f"http://127.0.0.1:{two_port}")
        maria.sign_in("maria", PASSWORD)
        if args.hold:
            return held(args, one, two, one_port, two_port, staff, maria)
        # The mirror's first pass fills the list the changes are made on.
        deadline = time.time() + 240
        while time.time() < deadline and len(re.findall(r'formaction="/libraries/([^"/]+)/claim"', maria.get("/libraries?page_size=50"))) < args.rounds:
            time.sleep(2)
        slugs = re.findall(r'formaction="/libraries/([^"/]+)/claim"', maria.get("/libraries?page_size=50"))[:args.rounds]
        if len(slugs) < args.rounds:
            raise SystemExit(f"only {len(slugs)} libraries to change")
        time.sleep(5)
        # The console's own background work (mirror, runner, dispatcher), without streams, to compare.
        cpu_start, wall_start = cpu_seconds(one.pid), time.time()
        time.sleep(args.idle)
        baseline_cpu = (cpu_seconds(one.pid) - cpu_start) / (time.time() - wall_start)
        rss_before = rss_kib(one.pid)
        cookie = cookie_of(staff)
        streams = [Stream(one_port, cookie) for _ in range(args.streams)]
        for stream in streams:
            stream.start()
        time.sleep(5)
        rss_open = rss_kib(one.pid)
        log(f"{args.streams} streams open: RSS {rss_before} → {rss_open} KiB")
        cpu_start, wall_start = cpu_seconds(one.pid), time.time()
        time.sleep(args.idle)
        idle_cpu = (cpu_seconds(one.pid) - cpu_start) / (time.time() - wall_start)
        latencies, missing = [], 0
        # Issue 48: what the changes cost this console (it only streams them: the second one takes them).
        change_cpu_start, change_wall_start = cpu_seconds(one.pid), time.time()
        for round_number, slug in enumerate(slugs):
            page = maria.get("/libraries?page_size=50")
            claim_form = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
            sent = time.time()
            if round_number % 2 == 0:
                maria.post(f"/libraries/{slug}/claim", {"csrf": claim_form, "back": "/libraries"})
            else:
                detail = maria.get(f"/libraries/{slug}")
                key = re.search(r'name="key" value="([^"]+)-approve"', detail).group(1) + "-approve"
                sent = time.time()
                maria.post(f"/libraries/{slug}/decide", {"csrf": hidden(detail)["csrf"], "key": key, "seen": "pending", "decision": "approve"})
            time.sleep(3)
            for stream in streams:
                arrived = stream.first_after(slug, sent)
                if arrived is None:
                    missing += 1
                else:
                    latencies.append(arrived - sent)
        change_wall = time.time() - change_wall_start
        change_cpu = cpu_seconds(one.pid) - change_cpu_start - idle_cpu * change_wall
        print(f"Live queue benchmark: {args.streams} streams on one console, {len(slugs)} changes through a second console process "
              f"on the same database ({(len(slugs) + 1) // 2} claims, {len(slugs) // 2} decisions)")
        print(f"| measure | value |\n|---|---|")
        print(f"| events received | {len(latencies)} of {len(slugs) * args.streams} ({missing} missing) |")
        if latencies:
            print(f"| change → event on each stream, p50 | {percentile(latencies, 0.5) * 1000:.0f} ms |")
            print(f"| change → event on each stream, p95 | {percentile(latencies, 0.95) * 1000:.0f} ms |")
            print(f"| change → event, slowest | {max(latencies) * 1000:.0f} ms |")
        print(f"| memory per open stream | {(rss_open - rss_before) / args.streams:.1f} KiB (RSS {rss_before} → {rss_open} KiB) |")
        # Each open page receives the change's event and fetches nothing: the stream's work is all it costs.
        print(f"| CPU per open page per change | {change_cpu / max(1, len(slugs) * args.streams) * 1000:.3f} ms "
              f"({change_cpu:.2f} CPU s above idle for {len(slugs)} changes on {args.streams} streams, over {change_wall:.0f} s) |")
        print(f"| CPU with {args.streams} idle streams | {idle_cpu * 100:.2f} % of one core over {args.idle} s "
              f"(without streams: {baseline_cpu * 100:.2f} %; the mirror, runner and dispatcher run in both) |")
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
