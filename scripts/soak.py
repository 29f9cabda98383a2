#!/usr/bin/env python3
"""The soak run of issue 17, driven by scripts/soak.sh (which builds or takes the binary).

On loopback ports in a temporary directory it starts the sandbox (real rate limits, 20 extra
staff accounts, --request-log) behind scripts/fault-proxy.py, and `console serve` in front of
the proxy. Twenty simulated staff members (soak01…soak20, each with its own cookie jar) sign
in through the console's form - retrying after the time the page names when Book Corners
refuses sign-ins for a while - browse, and decide: single approvals and rejections with a
reason, bulk approvals and rejections through the list's bulk form and its confirmation,
reports and photos, and pairs of staff deciding the same library at the same moment on
purpose. Meanwhile, on a schedule: the sandbox is restarted once, the proxy answers a share of
API calls with 502/503/504 for a while, the console is SIGKILLed twice (and started again on
the same database), and `console backup` is taken. Afterwards it waits (bounded) for decisions
still on their way, then checks and prints a table; exit status 1 when a check fails.

Usage: python3 scripts/soak.py --console BIN --dir DIR [--duration 600] [--settle 600] [--staff 20]
"""
import argparse
import collections
import html
import http.client
import http.cookiejar
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from consolekit import SLUG_LINK, forms, free_port, hidden, wait_http

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSWORD = "staff-demo-password"
REASONS = ["The photo does not show a book-sharing box.", "Duplicate of an existing library.",
           "The address cannot be found on the map."]
TRY_AGAIN = re.compile(r"Try again in (\d+) (min|s)(?: (\d+) s)?")
START = time.time()


def log(message):
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} +{time.time() - START:6.1f}s {message}", file=sys.stderr, flush=True)


# MARK: the processes

class Processes:
    def __init__(self, args):
        self.args = args
        self.dir = args.dir
        self.sandbox_port, self.proxy_port, self.console_port = free_port(), free_port(), free_port()
        self.database = os.path.join(self.dir, "console.sqlite")
        self.sandbox_database = os.path.join(self.dir, "sandbox.sqlite")
        self.request_log = os.path.join(self.dir, "sandbox-requests.ndjson")
        self.fault_log = os.path.join(self.dir, "faults.ndjson")
        self.console_url = f"http://127.0.0.1:{self.console_port}"
        self.proxy_url = f"http://127.0.0.1:{self.proxy_port}"
        self.sandbox = self.proxy = self.console = None
        self.console_starts = []     # (time, pid)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("CONSOLE_", "SANDBOX_"))}

    def remember(self, name, process):
        with open(os.path.join(self.dir, name + ".pid"), "w") as file:
            file.write(f"{process.pid}\n")

    def output(self, name):
        return open(os.path.join(self.dir, name + ".log"), "a")

    def start_sandbox(self):
        self.sandbox = subprocess.Popen(
            [self.args.console, "sandbox", "--bind", "127.0.0.1", "--port", str(self.sandbox_port),
             "--sandbox-database", self.sandbox_database, "--request-log", self.request_log,
             "--extra-staff", str(self.args.staff), "--no-apns-stand-in", "--log-level", "warning"],
            stdout=self.output("sandbox"), stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        self.remember("sandbox", self.sandbox)
        wait_http(f"http://127.0.0.1:{self.sandbox_port}/api/v1/auth/me", self.sandbox, 120, "sandbox")
        log(f"sandbox up (pid {self.sandbox.pid}) on {self.sandbox_port}")

    def stop_sandbox(self):
        self.sandbox.send_signal(signal.SIGTERM)
        try:
            self.sandbox.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.sandbox.kill()
            self.sandbox.wait()

    def start_proxy(self):
        self.proxy = subprocess.Popen(
            [sys.executable, os.path.join(CHECKOUT, "scripts", "fault-proxy.py"), "--listen", f"127.0.0.1:{self.proxy_port}",
             "--target", f"127.0.0.1:{self.sandbox_port}", "--log", self.fault_log],
            stdout=self.output("proxy"), stderr=subprocess.STDOUT, start_new_session=True)
        self.remember("proxy", self.proxy)
        wait_http(self.proxy_url + "/__faults", self.proxy, 30, "fault proxy")

    def faults(self, rate=None):
        url = self.proxy_url + "/__faults" + (f"?rate={rate}" if rate is not None else "")
        request = urllib.request.Request(url, data=b"" if rate is not None else None, method="POST" if rate is not None else "GET")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def start_console(self):
        self.console = subprocess.Popen(
            [self.args.console, "serve", "--bind", "127.0.0.1", "--port", str(self.console_port), "--database", self.database,
             "--backend-url", self.proxy_url + "/api/v1/", "--log-level", "warning",
             "--templates", os.path.join(CHECKOUT, "Templates"), "--public", os.path.join(CHECKOUT, "Public")],
            stdout=self.output("console"), stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        self.remember("console", self.console)
        wait_http(self.console_url + "/healthz", self.console, 180, "console")
        self.console_starts.append((time.time(), self.console.pid))
        log(f"console up (pid {self.console.pid}) on {self.console_port}")

    def kill_console(self):
        pid = self.console.pid
        os.kill(pid, signal.SIGKILL)
        self.console.wait()
        log(f"console pid {pid} SIGKILLed")

    def stop_all(self):
        for name in ("console", "sandbox", "proxy"):
            process = getattr(self, name)
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def rss_kib(self):
        with open(f"/proc/{self.console.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return None

    def run_cli(self, *arguments):
        result = subprocess.run([self.args.console, *arguments], capture_output=True, text=True, env=self.env, timeout=300)
        return result.returncode, (result.stdout + result.stderr).strip()


# MARK: a staff member in a browser



class ConsoleDown(Exception):
    pass


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.status = collections.Counter()
        self.fivexx = collections.Counter()        # (status, method, path template)
        self.down = 0                              # requests refused or dropped while the console was down
        self.views = 0
        self.sign_ins = collections.Counter()      # outcome
        self.submissions = []                      # one dict per decision submitted
        self.notes = collections.Counter()

    def saw(self, method, path, status):
        with self.lock:
            self.status[status] += 1
            if method == "GET":
                self.views += 1
            if status >= 500:
                self.fivexx[(status, method, re.sub(r"/libraries/[^/?]+", "/libraries/<slug>", path.split("?")[0]))] += 1


class Staff:
    def __init__(self, number, console_url, stats, stop):
        self.username = f"soak{number:02d}"
        self.console = console_url
        self.stats = stats
        self.stop = stop
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.slugs = []
        self.signed_in = False
        # One cookie jar: a sign-in (its CSRF cookie) must not interleave with another thread's.
        self.sign_in_lock = threading.Lock()

    def request(self, path, fields=None):
        """One request (redirects followed); retried while the console is down, up to 90 s."""
        data = urllib.parse.urlencode(fields, doseq=True).encode() if fields is not None else None
        method = "POST" if data is not None else "GET"
        deadline = time.time() + 90
        while True:
            try:
                request = urllib.request.Request(self.console + path, data=data, method=method)
                with self.opener.open(request, timeout=60) as response:
                    body, status, final = response.read().decode(errors="replace"), response.status, response.url
            except urllib.error.HTTPError as error:
                body, status, final = error.read().decode(errors="replace"), error.code, error.url
            except (urllib.error.URLError, ConnectionError, OSError, http.client.HTTPException) as error:
                with self.stats.lock:
                    self.stats.down += 1
                if time.time() > deadline:
                    raise ConsoleDown(f"{method} {path}: {error}")
                time.sleep(1 + random.random())
                continue
            self.stats.saw(method, path, status)
            return status, body, final or ""

    def get(self, path):
        status, body, final = self.request(path)
        if "/sign-in" in final and not path.startswith("/sign-in"):
            self.stats.notes[f"signed out while browsing ({self.username})"] += 1
            log(f"{self.username}: signed out (page {path} led to sign-in); signing in again")
            self.sign_in()
            status, body, final = self.request(path)
        return status, body

    def sign_in(self):
        with self.sign_in_lock:
            self.signed_in = False
            self._sign_in()

    def _sign_in(self):
        while not self.stop.is_set():
            _, page, _ = self.request("/sign-in")
            csrf = hidden(page).get("csrf")
            status, after, final = self.request("/sign-in", {"csrf": csrf, "next": "/", "login": self.username, "password": PASSWORD})
            if 'action="/sign-in"' not in after and "/sign-in" not in final:
                with self.stats.lock:
                    self.stats.sign_ins["signed in"] += 1
                self.signed_in = True
                log(f"{self.username}: signed in")
                return
            wait = TRY_AGAIN.search(after)
            if wait:
                seconds = int(wait.group(1)) * (60 if wait.group(2) == "min" else 1) + int(wait.group(3) or 0)
                with self.stats.lock:
                    self.stats.sign_ins["told to try again later (429)"] += 1
                log(f"{self.username}: sign-in refused for now (HTTP {status}), the page says try again in {seconds} s")
                self.stop.wait(seconds + random.uniform(1, 5))
            else:
                with self.stats.lock:
                    self.stats.sign_ins[f"refused otherwise (HTTP {status})"] += 1
                message = re.search(r'class="[^"]*(?:error|notice)[^"]*"[^>]*>(.*?)<', after, re.S)
                log(f"{self.username}: sign-in failed (HTTP {status}): {message.group(1).strip() if message else after[:200]}")
                self.stop.wait(10)
        raise ConsoleDown(f"{self.username}: the soak ended before this staff member could sign in")

    # Browsing

    TOUR = ["/", "/libraries?status=pending", "/libraries", "/libraries?status=approved", "LIBRARY", "/reports",
            "/photos", "/audit", "/outbox", "/libraries?status=rejected", "LIBRARY", "/statistics"]

    def browse_once(self, index):
        path = self.TOUR[index % len(self.TOUR)]
        if path == "LIBRARY":
            if not self.slugs:
                return
            path = "/libraries/" + random.choice(self.slugs)
        _, body = self.get(path)
        if path.startswith("/libraries?"):
            self.slugs = SLUG_LINK.findall(body) or self.slugs

    # Deciding

    def submitted(self, kind, target, decision, via, status, body, **extra):
        outcome = re.search(r'<span class="outcome outcome-([a-z]+)"[^>]*>(.*?)</span>', body, re.S)
        entry = {"staff": self.username, "kind": kind, "target": str(target), "decision": decision, "via": via,
                 "http": status, "outcome_on_page": outcome.group(1) if outcome else None, "time": time.time(), **extra}
        with self.stats.lock:
            self.stats.submissions.append(entry)
        return entry

    def library_forms(self, slug):
        _, detail = self.get("/libraries/" + slug)
        return detail, forms(detail, r"/libraries/[^\"]+/decide")

    def decide_library(self, slug, decision, reason=None, barrier=None, conflict=None):
        detail, library_forms = self.library_forms(slug)
        fields = next((hidden(f) for _, f in library_forms if f'value="{decision}"' in f), None)
        if fields is None:
            log(f"{self.username}: no {decision} form on {slug} (already decided or queued)")
            self.submitted("library", slug, decision, "single", None, detail, refused="no form offered", conflict=conflict)
            return
        if barrier is not None:
            try:
                barrier.wait(timeout=60)
            except threading.BrokenBarrierError:
                pass
        if decision == "reject":
            status, confirm, _ = self.request(f"/libraries/{slug}/decide", {**fields, "reason": reason})
            confirm_forms = forms(confirm, r"/libraries/[^\"]+/decide")
            if confirm_forms:
                action, form = confirm_forms[0]
                status, body, _ = self.request(action, hidden(form))
            else:
                body = confirm
        else:
            status, body, _ = self.request(f"/libraries/{slug}/decide", fields)
        self.submitted("library", slug, decision, "single", status, body, key=fields.get("key"), conflict=conflict)

    def decide_bulk(self, slugs, decision, reason=None):
        _, page = self.get("/libraries?status=pending&page_size=50")
        bulk = forms(page, r"/libraries/bulk[^\"]*")
        boxes = dict((html.unescape(v).split("|")[0], html.unescape(v)) for v in re.findall(r'<input type="checkbox" name="item" value="([^"]*)"', page))
        chosen = [boxes[s] for s in slugs if s in boxes]
        if not bulk or not chosen:
            log(f"{self.username}: bulk form or rows missing ({len(chosen)} of {len(slugs)} rows)")
            return
        action, form = bulk[0]
        fields = {**hidden(form), "item": chosen, "decision": decision, "reason_preset": "", "reason": reason or ""}
        status, confirm, _ = self.request(action, fields)
        confirm_forms = forms(confirm, r"/libraries/bulk[^\"]*")
        if not confirm_forms:
            log(f"{self.username}: no bulk confirmation (HTTP {status})")
            for slug in slugs:
                self.submitted("library", slug, decision, "bulk", status, confirm, refused="no confirmation page")
            return
        confirm_action, confirm_form = confirm_forms[0]
        confirm_fields = {k: v for k, v in hidden(confirm_form).items() if k != "item"}
        confirm_fields["item"] = [html.unescape(v) for v in re.findall(r'<input type="hidden" name="item" value="([^"]*)"', confirm_form)]
        status, body, _ = self.request(confirm_action, confirm_fields)
        for value in confirm_fields["item"]:
            self.submitted("library", value.split("|")[0], decision, "bulk", status, body, key=confirm_fields.get("key"))

    def decide_report(self, used):
        _, page = self.get("/reports?status=open")
        for action, form in forms(page, r"/reports/[0-9]+/decide"):
            report = action.split("/")[2]
            with used["lock"]:
                if report in used["reports"]:
                    continue
                used["reports"].add(report)
            decision = random.choice(["resolve", "resolve", "dismiss"])
            status, body, _ = self.request(action, {**hidden(form), "decision": decision})
            self.submitted("report", report, decision, "single", status, body, key=hidden(form).get("key"))
            return

    def decide_photo(self, used):
        _, page = self.get("/photos?status=pending")
        photo_forms = forms(page, r"/photos/[0-9]+/decide")
        for action, form in photo_forms:
            photo = action.split("/")[2]
            with used["lock"]:
                if photo in used["photos"]:
                    continue
                used["photos"].add(photo)
            if random.random() < 0.7:
                approve = next(((a, f) for a, f in photo_forms if a == action and 'value="approve"' in f), None)
                if approve:
                    status, body, _ = self.request(action, {**hidden(approve[1]), "decision": "approve"})
                    self.submitted("photo", photo, "approve", "single", status, body, key=hidden(approve[1]).get("key"))
                    return
            reject = next(((a, f) for a, f in photo_forms if a == action and 'class="reject-form"' in f or (a == action and 'value="reject"' in f)), None)
            if reject:
                fields = hidden(reject[1])
                status, body, _ = self.request(action, {**fields, "reason_preset": "", "reason": REASONS[0]})
                self.submitted("photo", photo, "reject", "single", status, body, key=fields.get("key"))
                return


# MARK: the plan

def plan_decisions(duration, staff_count, seed):
    """When each staff member decides what: (offset s, staff index, task)."""
    rng = random.Random(seed)
    tasks = ([("library", "approve")] * 8 + [("library", "reject")] * 4 + [("bulk", "approve")] * 2 + [("bulk", "reject")]
             + [("conflict", None)] * 3 + [("report", None)] * 8 + [("photo", None)] * 6)
    rng.shuffle(tasks)
    first, last = 0.12 * duration, 0.88 * duration
    step = (last - first) / max(1, len(tasks) - 1)
    return [(first + i * step + rng.uniform(-step / 3, step / 3), rng.randrange(staff_count), task) for i, task in enumerate(tasks)]


class Library:
    """Hands out pending libraries so only the deliberate conflicts decide one twice."""

    def __init__(self):
        self.lock = threading.Lock()
        self.taken = set()
        self.reports, self.photos = set(), set()

    def take(self, staff, count):
        _, page = staff.get("/libraries?status=pending&page_size=50")
        boxes = [html.unescape(v).split("|")[0] for v in re.findall(r'<input type="checkbox" name="item" value="([^"]*)"', page)]
        with self.lock:
            free = [s for s in boxes if s not in self.taken]
            chosen = free[-count:] if len(free) >= count else free
            self.taken.update(chosen)
        return chosen


def run_task(staff, task, pool, all_staff, used):
    kind, decision = task
    if kind == "library":
        slugs = pool.take(staff, 1)
        if slugs:
            staff.decide_library(slugs[0], decision, reason=random.choice(REASONS) if decision == "reject" else None)
    elif kind == "bulk":
        slugs = pool.take(staff, 3)
        if slugs:
            staff.decide_bulk(slugs, decision, reason=REASONS[1] if decision == "reject" else None)
    elif kind == "conflict":
        slugs = pool.take(staff, 1)
        if not slugs:
            return
        partners = [s for s in all_staff if s is not staff and s.signed_in]
        if not partners:
            log(f"{staff.username}: nobody else signed in yet for a conflict; skipped")
            return
        other = random.choice(partners)
        barrier = threading.Barrier(2)
        pair = f"{staff.username}+{other.username}:{slugs[0]}"
        log(f"conflict on purpose: {pair}")
        helper = threading.Thread(target=other.decide_library, args=(slugs[0], "reject"),
                                  kwargs={"reason": REASONS[2], "barrier": barrier, "conflict": pair}, daemon=True)
        helper.start()
        staff.decide_library(slugs[0], "approve", barrier=barrier, conflict=pair)
        helper.join(timeout=180)
    elif kind == "report":
        staff.decide_report(used)
    elif kind == "photo":
        staff.decide_photo(used)


def staff_loop(staff, index, tasks, end, pool, all_staff, used, stop, errors):
    try:
        staff.sign_in()
        if stop.is_set():
            errors.append(f"{staff.username}: never signed in")
            return
        view = random.randrange(100)
        while time.time() < end and not stop.is_set():
            due = [t for t in tasks if t[0] <= time.time() - START and not t[3]]
            if due:
                due[0][3] = True
                log(f"{staff.username}: {due[0][2]}")
                run_task(staff, due[0][2], pool, all_staff, used)
            else:
                staff.browse_once(view)
                view += 1
            time.sleep(random.uniform(2.0, 4.0))
    except Exception as error:      # a staff thread that dies is a finding, not a crash of the soak
        errors.append(f"{staff.username}: {type(error).__name__}: {error}")
        log(f"{staff.username} stopped: {type(error).__name__}: {error}")


# MARK: the checks

def unfinished(database):
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as db:
        return db.execute("SELECT COUNT(*) FROM action WHERE state NOT IN ('applied','conflict','failed')").fetchone()[0]


def actions(database):
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM action ORDER BY id")]


def sandbox_patches(request_log):
    lines = []
    with open(request_log) as file:
        for line in file:
            if line.strip():
                lines.append(json.loads(line))
    return lines


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--console", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--duration", type=int, default=600)
    parser.add_argument("--settle", type=int, default=600, help="the longest wait for decisions still on their way (600 s)")
    parser.add_argument("--staff", type=int, default=20)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--warmup", type=int, default=60, help="seconds after the last console start when RSS is taken as warmed up (60)")
    parser.add_argument("--down", type=float, default=5, help="seconds the console stays down after each SIGKILL (5)")
    parser.add_argument("--fault-rate", type=float, default=0.3, help="share of API calls the proxy fails while faults are on (0.3)")
    return parser.parse_args()


# The schedule, in fractions of the duration.
SCHEDULE = [(0.20, "restart sandbox"), (0.30, "SIGKILL console"), (0.42, "faults on"), (0.55, "faults off"),
            (0.62, "SIGKILL console"), (0.80, "backup")]

TARGET_PATH = {"library": "/api/v1/libraries/moderation/{}", "report": "/api/v1/libraries/moderation/reports/{}",
               "photo": "/api/v1/libraries/moderation/photos/{}"}


class Soak:
    """One run: the load, the schedule of failures, the wait for decisions on their way, then what they came to."""

    def __init__(self, args):
        self.args = args
        self.procs = Processes(args)
        self.stop = threading.Event()
        self.results = {}
        self.events = []
        self.rss_samples = []
        self.errors = []
        self.warmup_at = None
        self.backup_path = os.path.join(args.dir, "backup-during-soak.sqlite")
        self.backup_result = None

    # MARK: running

    def run(self):
        """Runs the load and the schedule; always stops every process."""
        try:
            self.procs.start_sandbox()
            self.procs.start_proxy()
            self.procs.start_console()
            global START
            START = time.time()
            self.stats = Stats()
            threads = self.start_staff(START + self.args.duration)
            self.follow_schedule()
            self.stop.set()
            join_deadline = time.time() + 200
            for thread in threads:
                thread.join(timeout=max(0.1, join_deadline - time.time()))
            self.results["rss_end_of_load"] = (self.procs.rss_kib(), time.time() - START, self.procs.console.pid)
            self.settle()
            self.results["rss_end"] = (self.procs.rss_kib(), time.time() - START, self.procs.console.pid)
            self.console_alive = self.procs.console.poll() is None
            self.rows = actions(self.procs.database)
            self.verify_live = self.procs.run_cli("audit", "verify", "--database", self.procs.database)
            self.verify_backup = (self.procs.run_cli("audit", "verify", "--database", self.backup_path)
                                  if os.path.exists(self.backup_path) else (1, "no backup file"))
        finally:
            self.stop.set()
            self.procs.stop_all()

    def start_staff(self, end):
        all_staff = [Staff(i + 1, self.procs.console_url, self.stats, self.stop) for i in range(self.args.staff)]
        tasks = {i: [] for i in range(self.args.staff)}
        for offset, index, task in plan_decisions(self.args.duration, self.args.staff, self.args.seed):
            tasks[index].append([offset, index, task, False])
        pool, used = Library(), {"lock": threading.Lock(), "reports": set(), "photos": set()}
        threads = [threading.Thread(target=staff_loop, args=(s, i, tasks[i], end, pool, all_staff, used, self.stop, self.errors), daemon=True)
                   for i, s in enumerate(all_staff)]
        for thread in threads:
            thread.start()
        return threads

    def follow_schedule(self):
        """Each event at its time, sampling RSS meanwhile, until the duration is over."""
        for fraction, event in SCHEDULE:
            self.wait_until(START + fraction * self.args.duration)
            log(f"schedule: {event}")
            self.events.append((round(time.time() - START), event))
            self.happen(event)
        self.wait_until(START + self.args.duration, sample_every=30)

    def wait_until(self, moment, sample_every=None):
        while time.time() < moment:
            time.sleep(0.5)
            if self.warmup_at and not self.results.get("rss_warm") and time.time() >= self.warmup_at:
                self.results["rss_warm"] = (self.procs.rss_kib(), time.time() - START, self.procs.console.pid)
                log(f"RSS after warm-up: {self.results['rss_warm'][0]} KiB (pid {self.procs.console.pid})")
            if sample_every and int(time.time()) % sample_every == 0:
                self.rss_samples.append((round(time.time() - START), self.procs.console.pid, self.procs.rss_kib()))

    def happen(self, event):
        procs = self.procs
        if event == "restart sandbox":
            procs.stop_sandbox()
            time.sleep(3)
            procs.start_sandbox()
        elif event == "SIGKILL console":
            procs.kill_console()
            time.sleep(self.args.down)    # staff meet a dead console meanwhile: refused connections, forms sent again
            procs.start_console()
            # RSS is measured on the console started after the last SIGKILL: forget any earlier one's.
            self.results.pop("rss_warm", None)
            self.warmup_at = time.time() + self.args.warmup
        elif event == "faults on":
            procs.faults(self.args.fault_rate)
        elif event == "faults off":
            self.results["faults"] = procs.faults(0)
            log(f"faults off: {self.results['faults']}")
        elif event == "backup":
            self.backup_result = procs.run_cli("backup", "--database", procs.database, "--to", self.backup_path)
            log("backup: " + self.backup_result[1].replace("\n", " | "))

    def settle(self):
        log(f"staff stopped; RSS {self.results['rss_end_of_load'][0]} KiB; waiting for decisions on their way (at most {self.args.settle} s)")
        settle_start = time.time()
        while time.time() - settle_start < self.args.settle:
            left = unfinished(self.procs.database)
            if left == 0:
                break
            if int(time.time() - settle_start) % 30 == 0:
                log(f"{left} decisions still on their way")
            time.sleep(1)
        self.results["settle_seconds"] = round(time.time() - settle_start)

    # MARK: what it came to

    def evaluate(self):
        """Compares what staff sent, what the console recorded and what the sandbox saw; answers the checks."""
        rows, stats = self.rows, self.stats
        self.log_lines = sandbox_patches(self.procs.request_log)
        patches = [l for l in self.log_lines if l["method"] == "PATCH" and l["client"] == "127.0.0.1"]
        effective = collections.Counter(l["path"] for l in patches if 200 <= l["status"] < 300)
        by_state = collections.Counter(r["state"] for r in rows)
        applied = [r for r in rows if r["state"] == "applied"]
        applied_paths = collections.Counter(TARGET_PATH[r["targetKind"]].format(urllib.parse.quote(r["targetKey"])) for r in applied)
        self.twice = {p: n for p, n in effective.items() if n > 1}
        self.mismatched = [p for p in applied_paths if effective.get(p, 0) == 0] + [p for p in effective if p not in applied_paths]
        failed_without_reason = [r["id"] for r in rows if r["state"] == "failed" and not (r["outcomeMessage"] or "").strip()]
        not_final = [r["id"] for r in rows if r["state"] not in ("applied", "conflict", "failed")]
        subs = stats.submissions
        self.recorded_keys = collections.defaultdict(list)
        for r in rows:
            self.recorded_keys[(r["actorUsername"], r["targetKind"], r["targetKey"])].append(r)
        refused = [s for s in subs if s.get("refused")]
        self.lost = [s for s in subs if not s.get("refused") and not self.recorded_keys.get((s["staff"], s["kind"], s["target"]))]
        fivexx_total = sum(stats.fivexx.values())
        backup_at = dict((e, t) for t, e in self.events).get("backup")
        return [
            ("every decision accounted for",
             not self.lost and not not_final and not failed_without_reason and len(rows) > 0,
             f"{len(subs)} submitted by staff ({len(subs) - len(refused)} recorded as actions, {len(refused)} refused by the form before recording); "
             f"{len(rows)} actions: " + ", ".join(f"{k} {v}" for k, v in sorted(by_state.items()))
             + f"; lost {len(self.lost)}; unfinished {len(not_final)}; failed without a reason {len(failed_without_reason)}"),
            ("no PATCH twice with effect",
             not self.twice and not self.mismatched,
             f"{len(patches)} PATCHes from the console at the sandbox, {sum(effective.values())} answered 2xx on {len(effective)} items; "
             f"applied decisions {len(applied)} on {len(applied_paths)} items; items with >1 effective PATCH {len(self.twice)}; "
             f"applied without an effective PATCH, or effective without an applied decision: {len(self.mismatched)}"),
            ("audit chain verifies (live database)", self.verify_live[0] == 0 and self.verify_live[1].startswith("OK"), self.verify_live[1]),
            ("backup taken during the soak verifies", self.backup_result is not None and self.backup_result[0] == 0
             and self.verify_backup[0] == 0 and self.verify_backup[1].startswith("OK"),
             f"backup at +{backup_at} s: " + (self.backup_result[1].replace(chr(10), '; ') if self.backup_result else 'not taken')
             + f"; audit verify: {self.verify_backup[1]}"),
            ("no 5xx from the console", fivexx_total == 0,
             f"{sum(stats.status.values())} answers to staff ({stats.views} page views): "
             + ", ".join(f"{k}: {v}" for k, v in sorted(stats.status.items()))
             + (f"; 5xx: " + ", ".join(f"{s} {m} {p} x{n}" for (s, m, p), n in stats.fivexx.items()) if fivexx_total else "")
             + f"; requests retried while the console was down: {stats.down}"),
            self.memory_check(),
            ("console alive at the end; no staff thread died", self.console_alive and not self.errors,
             f"console running: {self.console_alive}; staff errors: {self.errors or 'none'}"),
        ]

    def memory_check(self):
        """RSS of the last console started: after warm-up, when the staff stopped, and at the end, within 20 % of each other."""
        warm, load, end = (self.results.get(k) for k in ("rss_warm", "rss_end_of_load", "rss_end"))
        if not (warm and load and end):
            return ("RSS at the end within 20 % of after warm-up", False, "not measured")

        def within(a, b):
            return abs(b - a) <= 0.2 * a
        ok = warm[2] == end[2] == load[2] and within(warm[0], end[0]) and within(warm[0], load[0])
        return ("RSS at the end within 20 % of after warm-up", ok,
                f"VmRSS of console pid {warm[2]} (started after the 2nd SIGKILL; pids at the 3 samples {warm[2]}/{load[2]}/{end[2]}): "
                f"{warm[0] / 1024:.1f} MiB at +{warm[1]:.0f} s ({self.args.warmup} s after its start), "
                f"{load[0] / 1024:.1f} MiB when the staff stopped (+{load[1]:.0f} s), "
                f"{end[0] / 1024:.1f} MiB at the end (+{end[1]:.0f} s, after settling): {(end[0] - warm[0]) * 100 / warm[0]:+.1f} %")

    def report(self, checks):
        """Prints the run's story and the table; keeps everything in soak-result.json."""
        stats = self.stats
        print()
        print(f"Soak: {self.args.staff} staff, {self.args.duration} s, settle {self.results['settle_seconds']} s; events (s from start): "
              + ", ".join(f"{name} +{t}" for t, name in self.events))
        print(f"Sign-ins: " + ", ".join(f"{k} {v}" for k, v in stats.sign_ins.items())
              + (f"; notes: " + ", ".join(f"{k} x{v}" for k, v in stats.notes.items()) if stats.notes else ""))
        print(f"Fault proxy: {self.results.get('faults')}")
        print("Conflicting pairs: " + "; ".join(f"{pair} -> " + ", ".join(self.pair_outcome(s) for s in ss) for pair, ss in self.conflict_pairs().items()))
        sandbox_status = collections.Counter((l["kind"], l["status"]) for l in self.log_lines if l["client"] == "127.0.0.1")
        print("Sandbox answers to the console (kind status: count): " + ", ".join(f"{k} {s}: {n}" for (k, s), n in sorted(sandbox_status.items())))
        print()
        print("| check | result | measured |")
        print("|---|---|---|")
        for name, ok, detail in checks:
            print(f"| {name} | {'PASS' if ok else 'FAIL'} | {detail} |")
        for r in (r for r in self.rows if r["state"] == "failed"):
            print(f"failed action {r['id']} ({r['actorUsername']} {r['targetKind']} {r['targetKey']}): {r['outcomeMessage']}")
        for s in self.lost:
            print(f"LOST: {s}")
        for p, n in self.twice.items():
            print(f"PATCHED {n} times with effect: {p}")
        for p in self.mismatched:
            print(f"PATCH/decision mismatch: {p}")
        with open(os.path.join(self.args.dir, "soak-result.json"), "w") as file:
            json.dump({"checks": checks, "submissions": stats.submissions, "events": self.events, "rss_samples": self.rss_samples,
                       "results": dict(self.results)}, file, indent=1, default=str)

    def conflict_pairs(self):
        pairs = collections.defaultdict(list)
        for s in self.stats.submissions:
            if s.get("conflict"):
                pairs[s["conflict"]].append(s)
        return pairs

    def pair_outcome(self, submission):
        states = "/".join(r["state"] for r in self.recorded_keys.get((submission["staff"], "library", submission["target"]), []))
        return f"{submission['staff']} {submission['decision']}: " + (states or str(submission.get("refused", "not recorded")))


def main():
    soak = Soak(parse_args())

    def on_signal(number, _frame):
        log(f"signal {number}: stopping")
        soak.stop.set()
        soak.procs.stop_all()
        sys.exit(130)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    soak.run()
    checks = soak.evaluate()
    soak.report(checks)
    sys.exit(0 if all(ok for _, ok, _ in checks) else 1)


if __name__ == "__main__":
    main()
