#!/usr/bin/env python3
"""Signs in to a running `console demo` with headless Chromium (over WebDriver) and saves
1280x900 screenshots of the main pages to docs/screenshots/.

Usage: swift run console demo &   then   python3 scripts/screenshots.py [console-url]
Needs Debian's chromium and chromium-driver. VIEWPORT=390x844 takes them as a phone shows
the pages (DevTools' device metrics), OUT=dir saves them elsewhere. SET=themes takes the
dashboard, the libraries list and a library's page at 1280x800 and 390x844, light and dark;
THEME_PAGES=name=/path,... takes those pages instead (THEME_PAGES=oncall=/on-call,audit=/audit).
"""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.request

from consolekit import free_port

CONSOLE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
OUT = os.environ.get("OUT") or os.path.join(os.path.dirname(__file__), "..", "docs", "screenshots")
VIEWPORT = os.environ.get("VIEWPORT")


def call(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)["value"]


def main():
    port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(50):
            try:
                call(base, "GET", "/status")
                break
            except Exception:
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900", "--hide-scrollbars"]}}}}
        session = call(base, "POST", "/session", caps)["sessionId"]
        s = f"/session/{session}"
        if VIEWPORT:
            width, height = (int(n) for n in VIEWPORT.split("x"))
            call(base, "POST", s + "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride",
                 "params": {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}})

        def go(path):
            call(base, "POST", s + "/url", {"url": path if path.startswith("http") else CONSOLE + path})

        def find(css):
            element = call(base, "POST", s + "/element", {"using": "css selector", "value": css})
            return next(iter(element.values()))

        def shoot(name):
            png = base64.b64decode(call(base, "GET", s + "/screenshot"))
            with open(os.path.join(OUT, name), "wb") as f:
                f.write(png)
            print("saved", name)

        os.makedirs(OUT, exist_ok=True)
        if os.environ.get("SET") == "themes":
            themes(call, base, s, go, find, shoot)
            call(base, "DELETE", s)
            return
        go("/sign-in")
        shoot("sign-in.png")
        call(base, "POST", s + f"/element/{find('#login')}/value", {"text": "staff"})
        call(base, "POST", s + f"/element/{find('#password')}/value", {"text": "staff-demo-password"})
        call(base, "POST", s + f"/element/{find('button[type=submit]')}/click", {})
        time.sleep(0.5)
        go("/")
        shoot("dashboard.png")
        go("/libraries")
        shoot("libraries.png")
        # A pending submission with an approved library under 50 m away.
        slug = os.environ.get("DUPLICATE_SLUG")
        if slug:
            go("/libraries/" + slug)
            shoot("library-detail.png")
        go("/reports")
        shoot("reports.png")
        go("/photos")
        shoot("photos.png")
        go("/outbox")
        shoot("outbox.png")
        message = call(base, "POST", s + "/execute/sync", {"script": "const a = document.querySelector('table.outbox a'); return a ? a.getAttribute('href') : null;", "args": []})
        if message:
            go(message)
            shoot("outbox-message.png")
        go("/devices")
        shoot("devices.png")
        pushes = os.environ.get("PUSHES_URL", "http://127.0.0.1:8081/apns/pushes")
        if pushes:
            go(pushes)
            shoot("apns-pushes.png")
        go("/on-call")
        shoot("oncall.png")
        go("/on-call/alerts")
        shoot("oncall-alerts.png")
        go("/on-call/handoffs")
        shoot("oncall-handoffs.png")
        # The newest past hand-off, as its link on the list leads there.
        newest = call(base, "POST", s + "/execute/sync", {"script": "const a = document.querySelector('table.handoffs a'); return a ? a.getAttribute('href') : null;", "args": []})
        if newest:
            go(newest)
            shoot("oncall-handoff.png")
        go("/audit")
        shoot("audit.png")
        go("/audit/2")
        shoot("audit-entry.png")
        go("/audit/summary")
        shoot("audit-summary.png")
        if os.environ.get("STATISTICS", "1") == "1":
            # The whole page, charts and tables, in one tall picture.
            if VIEWPORT:
                call(base, "POST", s + "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride",
                     "params": {"width": width, "height": 7000, "deviceScaleFactor": 1, "mobile": False}})
            else:
                call(base, "POST", s + "/window/rect", {"width": 1280, "height": 3400})
            go("/statistics")
            shoot("statistics.png")
        call(base, "DELETE", s)
    finally:
        driver.terminate()


def themes(call, base, s, go, find, shoot):
    """SET=themes: the dashboard, the libraries list and a library's page (DUPLICATE_SLUG, else the
    first waiting one marked as a duplicate, a Latin-lettered name preferred) at 1280x800 and
    390x844 (a touch screen), light and dark: 12 files
    named like dashboard-1280-light.png."""
    go("/sign-in")
    call(base, "POST", s + f"/element/{find('#login')}/value", {"text": "staff"})
    call(base, "POST", s + f"/element/{find('#password')}/value", {"text": "staff-demo-password"})
    call(base, "POST", s + f"/element/{find('button[type=submit]')}/click", {})
    time.sleep(0.5)
    slug = os.environ.get("DUPLICATE_SLUG")
    if os.environ.get("THEME_PAGES"):
        detail = None  # the pages named instead
    elif slug:
        detail = "/libraries/" + slug
    else:
        go("/libraries?status=pending&page_size=50")
        detail = call(base, "POST", s + "/execute/sync", {"script": "var rows = Array.from(document.querySelectorAll('[data-row]')).filter(r => /duplicate/.test(Array.from(r.querySelectorAll('.concern')).map(c => c.textContent).join(' '))); var row = rows.find(r => /^[\\x20-\\x7e\\u00c0-\\u017f]+$/.test(r.querySelector('a').textContent)) || rows[0] || document.querySelector('[data-row]'); return row ? row.dataset.open : null;", "args": []})
    # Before the demo's mirror has a waiting library there is no library's page to take.
    pages = [("dashboard", "/"), ("libraries", "/libraries")] + ([("library-detail", detail)] if detail else [])
    if os.environ.get("THEME_PAGES"):
        pages = [tuple(entry.split("=", 1)) for entry in os.environ["THEME_PAGES"].split(",")]
    for width, height in ((1280, 800), (390, 844)):
        call(base, "POST", s + "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride",
             "params": {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}})
        # A phone is a touch screen: the page shows it no keyboard shortcuts.
        call(base, "POST", s + "/goog/cdp/execute", {"cmd": "Emulation.setTouchEmulationEnabled",
             "params": {"enabled": width < 700, "maxTouchPoints": 5 if width < 700 else 1}})
        for theme in ("light", "dark"):
            call(base, "POST", s + "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia",
                 "params": {"features": [{"name": "prefers-color-scheme", "value": theme}]}})
            for name, path in pages:
                go(path)
                time.sleep(1.0 if name == "dashboard" else 0.3)
                shoot(f"{name}-{width}-{theme}.png")


if __name__ == "__main__":
    main()
