#!/usr/bin/env python3
"""Benchmark: page views while another process holds the database's write lock.

Starts a sandbox (no rate limits) and `console serve` on a fresh database, signs in SESSIONS
staff sessions and waits for the mirror. Then it measures page views (dashboard and the three
queues, CONNECTIONS at once) for BASELINE seconds with nothing else writing, and again through
HOLDS holds of the write lock by a second process (`BEGIN IMMEDIATE`, kept HOLD seconds, as a
rolling deploy's other console or `console devices import` would). Before each hold every
session's last activity is moved back two minutes, so each session's next view has its
once-a-minute touch fall due while the lock is held: those views are reported on their own.

Usage: scripts/benchmark-blocked-writer.py [CONSOLE_BINARY]
(default: the debug build's console; build it first with `swift build --product console`).
Environment: SESSIONS (4; sign-ins share the backend's login budget), CONNECTIONS (4), BASELINE (10), HOLDS (3), HOLD (4).
"""
import http.client
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from consolekit import percentile

SESSIONS = int(os.environ.get("SESSIONS", "4"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "4"))
BASELINE = float(os.environ.get("BASELINE", "10"))
HOLDS = int(os.environ.get("HOLDS", "3"))
HOLD = float(os.environ.get("HOLD", "4"))
CONSOLE_PORT, SANDBOX_PORT = 18280, 18281
PAGES = ["/", "/libraries", "/reports", "/photos"]


def request(conn, method, path, cookie=None, body=None):
    headers = {"Connection": "keep-alive"}
    if cookie:
        headers["Cookie"] = cookie
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    return response.status, response.getheaders(), response.read().decode("utf-8", "replace")


def wait_up(port, path, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            status, _, _ = request(conn, "GET", path)
            if status < 500:
                return
        except OSError:
            pass
        time.sleep(0.3)
    sys.exit(f"nothing answered on port {port}")


def sign_in():
    conn = http.client.HTTPConnection("127.0.0.1", CONSOLE_PORT, timeout=30)
    status, headers, page = request(conn, "GET", "/sign-in")
    pre = [v.split(";")[0] for k, v in headers if k.lower() == "set-cookie"]
    token = re.search(r'name="csrf" value="([^"]*)"', page).group(1)
    body = urllib.parse.urlencode({"csrf": token, "login": "staff", "password": "staff-demo-password"})
    status, headers, answer = request(conn, "POST", "/sign-in", cookie="; ".join(pre), body=body)
    cookies = [v.split(";")[0] for k, v in headers if k.lower() == "set-cookie" and v.startswith("bc_session=")]
    if status != 303 or not cookies:
        said = re.search(r'role="alert"[^>]*>([^<]*)', answer)
        sys.exit(f"sign-in answered {status}: {said.group(1).strip() if said else ''}")
    return cookies[0]


def describe(name, samples):
    if not samples:
        return f"{name}: no views"
    ms = [s * 1000 for s in samples]
    return (f"{name}: {len(ms)} views, p50 {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
            f"max {max(ms):.1f} ms")


def load(cookies, seconds, results, errors, stop_at=None):
    """CONNECTIONS threads viewing pages round-robin; each result is (start time, seconds, session)."""
    end = stop_at or (time.time() + seconds)

    def worker(index):
        conn = http.client.HTTPConnection("127.0.0.1", CONSOLE_PORT, timeout=30)
        n = index
        while time.time() < end:
            cookie = cookies[n % len(cookies)]
            path = PAGES[n % len(PAGES)]
            started = time.time()
            try:
                status, _, _ = request(conn, "GET", path, cookie=cookie)
            except OSError as error:
                errors.append(str(error))
                conn = http.client.HTTPConnection("127.0.0.1", CONSOLE_PORT, timeout=30)
                continue
            if status != 200:
                errors.append(f"{path}: {status}")
            results.append((started, time.time() - started, cookie))
            n += CONNECTIONS

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    return threads


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/console"
    work = tempfile.mkdtemp(prefix="blocked-writer-")
    database = os.path.join(work, "console.sqlite")
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sandbox = subprocess.Popen([binary, "sandbox", "--port", str(SANDBOX_PORT), "--sandbox-database",
                                os.path.join(work, "sandbox.sqlite"), "--no-rate-limits", "--no-apns-stand-in",
                                "--log-level", "error"], **quiet)
    console = None
    try:
        wait_up(SANDBOX_PORT, "/api/v1/statistics/")
        console = subprocess.Popen([binary, "serve", "--port", str(CONSOLE_PORT), "--database", database,
                                    "--backend-url", f"http://127.0.0.1:{SANDBOX_PORT}/api/v1/", "--no-watch",
                                    "--no-metrics", "--log-level", "error"], **quiet)
        wait_up(CONSOLE_PORT, "/healthz")
        cookies = [sign_in() for _ in range(SESSIONS)]
        probe = http.client.HTTPConnection("127.0.0.1", CONSOLE_PORT, timeout=30)
        for queue in ["/libraries", "/reports", "/photos"]:
            for _ in range(300):
                if "data-row" in request(probe, "GET", queue, cookie=cookies[0])[2]:
                    break
                time.sleep(0.2)
        # warm up
        warm, errors = [], []
        for thread in load(cookies, 3, warm, errors):
            thread.join()

        baseline = []
        for thread in load(cookies, BASELINE, baseline, errors):
            thread.join()

        held, touch_due = [], []
        holder = sqlite3.connect(database, timeout=30, isolation_level=None)
        for _ in range(HOLDS):
            # Every session's touch falls due at its next view; then the lock is taken and kept.
            holder.execute("BEGIN IMMEDIATE")
            holder.execute("UPDATE session SET lastSeenAt = strftime('%Y-%m-%d %H:%M:%f', 'now', '-120 seconds')")
            holder.execute("COMMIT")
            holder.execute("BEGIN IMMEDIATE")
            locked_at = time.time()
            views = []
            threads = load(cookies, 0, views, errors, stop_at=locked_at + HOLD - 0.2)
            for thread in threads:
                thread.join()
            holder.execute("COMMIT")
            first = {}
            for started, seconds, cookie in sorted(views):
                first.setdefault(cookie, seconds)
            touch_due += list(first.values())
            held += [seconds for _, seconds, _ in views]
            time.sleep(1)

        print(f"machine: {os.cpu_count()} cores; console: {binary}; {SESSIONS} sessions, {CONNECTIONS} connections;"
              f" pages {', '.join(PAGES)}")
        print(describe(f"nothing else writing ({BASELINE:.0f} s)", [s for _, s, _ in baseline]))
        print(describe(f"another process holding the write lock ({HOLDS} x {HOLD:.0f} s)", held))
        print(describe("  of which each session's first view, its touch due", touch_due))
        if errors:
            print(f"errors: {len(errors)} (first: {errors[0]})")
    finally:
        for process in [console, sandbox]:
            if process:
                process.terminate()
                process.wait(10)


if __name__ == "__main__":
    main()
