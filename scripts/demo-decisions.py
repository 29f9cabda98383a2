#!/usr/bin/env python3
"""Signs in to a running `console demo` as staff and takes a few dozen decisions through
the console's own forms: approvals and rejections of libraries, reports resolved and
dismissed, photos approved and rejected. Fills the audit log, the outbox and the
statistics page with something to look at.

Usage: swift run console demo --write-limit 1000 --read-limit 5000 &
       python3 scripts/demo-decisions.py [console-url] [libraries] [reports] [photos]
"""
import re
import sys
import time

from consolekit import ConsoleBrowser, forms, hidden

CONSOLE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
LIBRARIES, REPORTS, PHOTOS = (int(a) for a in (sys.argv[2:5] + ["24", "10", "8"][len(sys.argv[2:5]):]))
REASONS = ["The photo does not show a book-sharing box.", "Duplicate of an existing library."]

BROWSER = ConsoleBrowser(CONSOLE, timeout=30)
get, post = BROWSER.get, BROWSER.post


def main():
    BROWSER.sign_in("staff", "staff-demo-password")
    # A demo just started has its mirror filling: wait for the first pending libraries.
    for _ in range(60):
        slugs = re.findall(r'<a href="/libraries/([^"#?]+)[^"]*" class="[^"]*" dir="auto">', get("/libraries?status=pending&page_size=50"))
        if slugs:
            break
        time.sleep(1)
    decided = 0
    for index, slug in enumerate(slugs[:LIBRARIES]):
        detail = get("/libraries/" + slug)
        library_forms = forms(detail, "/libraries/[^\"]+/decide")
        # A possible duplicate offers no one-click Approve: it is left for a person to compare.
        if not any('value="approve"' in f for _, f in library_forms):
            continue
        if index % 4 == 3:
            fields = next((hidden(f) for _, f in library_forms if 'value="reject"' in f), None)
            if fields is None:
                continue
            confirm = post(f"/libraries/{slug}/decide", {**fields, "reason": REASONS[index % 2]})
            for action, form in forms(confirm, "/libraries/[^\"]+/decide"):
                post(action, hidden(form))
        else:
            fields = next(hidden(f) for _, f in library_forms if 'value="approve"' in f)
            post(f"/libraries/{slug}/decide", fields)
        decided += 1
    for index, (action, form) in enumerate(forms(get("/reports?status=open"), "/reports/[0-9]+/decide")[:REPORTS]):
        post(action, {**hidden(form), "decision": "dismiss" if index % 3 == 2 else "resolve"})
        decided += 1
    # Each photo has a form per decision (its key names the decision): send the one wanted.
    by_photo = {}
    for action, form in forms(get("/photos?status=pending"), "/photos/[0-9]+/decide"):
        by_photo.setdefault(action, []).append(form)
    for index, (action, photo_forms) in enumerate(list(by_photo.items())[:PHOTOS]):
        wanted = "reject" if index % 3 == 2 else "approve"
        form = next((f for f in photo_forms if f'name="decision" value="{wanted}"' in f), None)
        if form is None:
            continue
        reason = {"reason": "The photo does not show a book-sharing box."} if wanted == "reject" else {}
        post(action, {**hidden(form), "decision": wanted, **reason})
        decided += 1
    print(f"sent {decided} decisions")


if __name__ == "__main__":
    main()
