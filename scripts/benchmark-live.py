#!/usr/bin/env python3
"""The live queue's benchmark (issue 31): 50 open pages follow /events on one console; a second
`console serve` on the same database takes the decisions and claims. It measures the time from
each change to its event on each of the 50 streams (p50, p95), the console's memory per open
stream, and its CPU while the 50 streams sit idle.

Usage: python3 scripts/benchmark-live.py --console .build/release/console [--streams 50] [--rounds 10]
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
    """One open page's EventSource: every item event, with when it arrived."""

    def __init__(self, port, cookie):
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.connection.request("GET", "/events", headers={"Cookie": cookie, "Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise SystemExit(f"/events answered {self.response.status}: {self.response.read()[:200]!r}")
        self.arrivals = []    # (time, key, data)
        self.lock = threading.Lock()

    def run(self):
        data = []
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    return
                line = line.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].strip())
                elif line == "" and data:
                    payload = json.loads("\n".join(data))
                    with self.lock:
                        self.arrivals.append((time.time(), payload.get("key"), payload))
                    data = []
        except (OSError, ValueError):
            return

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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--console", required=True)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10, help="changes made through the second process (half claims, half decisions)")
    parser.add_argument("--idle", type=int, default=30, help="seconds the streams sit idle while CPU is measured")
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
                  "--live-streams-per-session", str(args.streams + 10), "--no-metrics"]
        one = start([args.console, "serve", "--port", str(one_port)] + common, "console-one", directory, f"http://127.0.0.1:{one_port}/healthz")
        processes.append(one)
        two = start([args.console, "serve", "--port", str(two_port)] + common, "console-two", directory, f"http://127.0.0.1:{two_port}/healthz")
        processes.append(two)
        staff = ConsoleBrowser(f"http://127.0.0.1:{one_port}")
        staff.sign_in("staff", PASSWORD)
        maria = ConsoleBrowser(f"http://127.0.0.1:{two_port}")
        maria.sign_in("maria", PASSWORD)
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
        print(f"Live queue benchmark: {args.streams} streams on one console, {len(slugs)} changes through a second console process "
              f"on the same database ({(len(slugs) + 1) // 2} claims, {len(slugs) // 2} decisions)")
        print(f"| measure | value |\n|---|---|")
        print(f"| events received | {len(latencies)} of {len(slugs) * args.streams} ({missing} missing) |")
        if latencies:
            print(f"| change → event on each stream, p50 | {percentile(latencies, 0.5) * 1000:.0f} ms |")
            print(f"| change → event on each stream, p95 | {percentile(latencies, 0.95) * 1000:.0f} ms |")
            print(f"| change → event, slowest | {max(latencies) * 1000:.0f} ms |")
        print(f"| memory per open stream | {(rss_open - rss_before) / args.streams:.1f} KiB (RSS {rss_before} → {rss_open} KiB) |")
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
