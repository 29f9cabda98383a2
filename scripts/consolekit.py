"""What the scripts share: signing in to a console and sending its forms as a browser would,
reading a page's forms, free ports, waiting for a server, and nearest-rank percentiles.

    import consolekit   (the scripts put their own folder first on sys.path, as Python does)
"""
import html
import http.cookiejar
import math
import re
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# A library's link on a list page: its slug.
SLUG_LINK = re.compile(r'<a href="/libraries/([^"#/?]+)" class="[^"]*" dir="auto">')


def log(message):
    """A line on stderr, with the UTC time."""
    print(time.strftime("%H:%M:%S ", time.gmtime()) + message, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, process, seconds, name):
    """Waits until `url` answers (any HTTP status); fails if `process` exits first."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode} at start-up")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    raise RuntimeError(f"{name} did not answer {url} within {seconds} s")


def hidden(form_html):
    """A form's hidden fields, by name, unescaped."""
    return {html.unescape(n): html.unescape(v) for n, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form_html)}


def forms(page, action_pattern):
    """The POST forms of `page` whose action matches `action_pattern`: (action, inner HTML) pairs."""
    return [(html.unescape(a), f) for a, f in re.findall(r'<form method="post" action="(' + action_pattern + r')"[^>]*>(.*?)</form>', page, re.S)]


def percentile(values, share):
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


class ConsoleBrowser:
    """A cookie jar on one console: pages read and forms sent as a browser sends them."""

    def __init__(self, console_url, timeout=60):
        self.console = console_url
        self.timeout = timeout
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def fetch(self, path):
        """(status, body) of a GET, an HTTP error's page included."""
        try:
            with self.opener.open(self.console + path, timeout=self.timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def get(self, path):
        return self.fetch(path)[1]

    def post(self, path, fields):
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.console + path, data=data, method="POST")
        with self.opener.open(request, timeout=self.timeout) as response:
            return response.read().decode()

    def sign_in(self, login, password, next_path="/"):
        """Signs in through the sign-in form; stops the script with the page's words if refused."""
        page = self.get("/sign-in")
        after = self.post("/sign-in", {"csrf": hidden(page)["csrf"], "next": next_path, "login": login, "password": password})
        if 'action="/sign-in"' in after:
            raise SystemExit("sign-in failed: " + re.sub(r"\s+", " ", after)[:300])
        return after
