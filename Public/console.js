// Small conveniences only; every page works without this file.
// 1. A time's exact UTC instant on hover (the page writes times on the team's clock).
// 2. A preset rejection reason is copied into the editable text box.
// 2b. What is typed into any form that posts is kept in this tab, and offered back after a
//    sign-in (a session that ended, or was signed out elsewhere, while it was being typed).
// 3. Bulk selection on the libraries list: a header box selects the page, shift-click
//    selects a range, and the bar under the list counts what is selected.
// 4. Keyboard: "/" focuses the search box, "g d/l/r/p/a/s" goes to a page, and on queues
//    and a library's page the review shortcuts below ("?" lists them). A shortcut only
//    presses the page's own buttons and links, so it asks for the same confirmation the
//    mouse path does, and never fires while typing.
(function () {
  "use strict";
  // Times are written on the team's clock by the server, the same with or without script;
  // hovering one shows its exact UTC instant (most carry it already as their title).
  document.querySelectorAll("time[datetime]").forEach(function (element) {
    var date = new Date(element.getAttribute("datetime"));
    if (!isNaN(date) && !element.title) { element.title = date.toISOString().slice(0, 16).replace("T", " ") + " UTC"; }
  });

  // A picked preset reason lands in the text box, where it can be edited before sending.
  document.querySelectorAll("select[name=reason_preset]").forEach(function (select) {
    var box = select.form && select.form.querySelector("textarea[name=reason]");
    if (!box) { return; }
    select.addEventListener("change", function () {
      if (select.value && select.value !== "own" && (box.value === "" || box.dataset.fromPreset === "1")) {
        // A space after it, so words typed next do not run into its full stop.
        box.value = select.value + " ";
        box.dataset.fromPreset = "1";
      }
    });
    box.addEventListener("input", function () {
      box.dataset.fromPreset = "0";
      // Typing a reason is choosing "my own reason" (the list is required).
      var own = select.querySelector("option[value=own]");
      if (own && select.value === "" && box.value.trim() !== "") { select.value = "own"; }
    });
  });

  // Typed text, kept per tab (sessionStorage) under the page and the form's
  // address, for an hour at most. They come back only on a page reached from the sign-in page
  // (the send before it failed for want of a session), or on their own page after the console
  // refused the form whole (an old tab's token, a form too large). Once sent, an entry is dropped by the
  // next page that is not the sign-in page or reached from it (the send went through), and
  // signing out drops them all, so nobody's text reaches the next person at this screen.
  (function () {
    var store;
    try { store = window.sessionStorage; } catch (e) { return; }
    if (!store) { return; }
    var prefix = "typed:";
    var maxAge = 60 * 60 * 1000;
    // A refused form's text is offered back for a quarter of an hour: after that it is old news.
    var refusedMaxAge = 15 * 60 * 1000;
    // Whose text it is: only the same person, signed in again, gets it back in this tab.
    var nameBox = document.querySelector(".user .username");
    var who = nameBox ? nameBox.textContent : "";
    function read(key) {
      try { return JSON.parse(store.getItem(key) || "null"); } catch (e) { return null; }
    }
    function write(key, entry) {
      try { store.setItem(key, JSON.stringify(entry)); } catch (e) { /* full: nothing kept */ }
    }
    function keys() {
      var found = [];
      for (var i = 0; i < store.length; i += 1) { if (store.key(i).indexOf(prefix) === 0) { found.push(store.key(i)); } }
      return found;
    }
    var fromSignIn = false;
    try { fromSignIn = new URL(document.referrer).pathname === "/sign-in"; } catch (e) { fromSignIn = false; }
    var onSignIn = location.pathname === "/sign-in";
    // A form refused before anything was done (an old tab's token, a form too large): what was
    // sent is offered back on its own page, however that page is opened again.
    var refused = !!document.querySelector("[data-form-refused]");
    keys().forEach(function (key) {
      var entry = read(key);
      var stale = !entry || Date.now() - entry.at > maxAge;
      if (stale || (entry.refused && Date.now() - entry.at > refusedMaxAge)) { store.removeItem(key); return; }
      if (refused && entry.sent) { entry.sent = false; entry.refused = true; write(key, entry); return; }
      if (entry.sent && !fromSignIn && !onSignIn) { store.removeItem(key); }
    });
    document.querySelectorAll("form[action='/sign-out']").forEach(function (form) {
      form.addEventListener("submit", function () { keys().forEach(function (key) { store.removeItem(key); }); });
    });
    var restored = 0;
    var refusedHere = false, carriedHere = false;
    // Every typed-text field of every form that posts (reasons, notes, hand-offs, the rotation,
    // overrides), except the sign-in form's own.
    var typedFields = onSignIn ? [] : document.querySelectorAll("form[method=post] textarea[name], form[method=post] input[type=text][name]");
    Array.prototype.forEach.call(typedFields, function (box) {
      // The page's path, not its query: a library opened from page 2 of a list or from the menu is one page.
      var key = prefix + location.pathname + "|" + box.form.getAttribute("action") + "|" + box.name;
      box.addEventListener("input", function () {
        if (box.value.trim() === "") { store.removeItem(key); } else { write(key, { text: box.value, at: Date.now(), sent: false, who: who }); }
      });
      box.form.addEventListener("submit", function () {
        var entry = read(key);
        if (entry) { entry.sent = true; write(key, entry); }
      });
      // Another form of the page sent (I'm reviewing this, Release, a note): what is typed here
      // was not sent, and comes back when the page does.
      document.addEventListener("submit", function (event) {
        // Signing out forgets everything typed (above): nothing is carried past it.
        if (event.target === box.form || box.value.trim() === "" || event.target.getAttribute("action") === "/sign-out") { return; }
        write(key, { text: box.value, at: Date.now(), sent: false, carried: true, who: who });
      });
      var kept = read(key);
      var carried = kept && kept.carried && Date.now() - kept.at < refusedMaxAge;
      if ((fromSignIn || carried || (kept && kept.refused)) && kept && kept.text && kept.who === who && box.value.trim() === "") {
        if (kept.refused) { refusedHere = true; }
        if (carried) { carriedHere = true; }
        box.value = kept.text;
        box.dataset.fromPreset = "0";
        store.removeItem(key);
        var picker = box.form.querySelector("select[name=reason_preset]");
        if (picker && picker.value === "" && picker.querySelector("option[value=own]")) { picker.value = "own"; }
        restored += 1;
      }
    });
    if (restored > 0) {
      var note = document.createElement("p");
      note.className = "restored-note";
      note.setAttribute("role", "status");
      note.textContent = refusedHere
        ? "What you had typed is back in the form below: the console refused the form, so nothing was sent. Check it, then send it."
        : carriedHere ? "What you had typed is back in the form below, not sent yet."
        : "What you had typed before signing in is back in the form below. Nothing was sent: check it, then send it.";
      var main = document.getElementById("main");
      if (main) { main.insertBefore(note, main.firstChild); }
    }
  })();

  // A read-only value to keep elsewhere (the audit log's head hash) gets a Copy button;
  // without script the field is still there to select and copy.
  document.querySelectorAll("input[data-copyable]").forEach(function (input) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.textContent = "Copy";
    button.addEventListener("click", function () {
      input.select();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard) { navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); }); } else { document.execCommand("copy"); done(); }
    });
    input.insertAdjacentElement("afterend", button);
  });

  var openedWithDraft = /[?&]bulk_/.test(window.location.search);
  // A list opened with a bulk draft (a review's Cancel) ticks its rows once: the address drops
  // the draft, so it is the list's own again (a reload does not tick them again, and a decision
  // sent in place comes back to the same address).
  if (window.history && history.replaceState && /[?&]bulk_/.test(window.location.search)) {
    var kept = window.location.search.slice(1).split("&").filter(function (pair) { return pair.indexOf("bulk_") !== 0; }).join("&");
    history.replaceState(history.state, "", window.location.pathname + (kept ? "?" + kept : "") + window.location.hash);
  }

  // Bulk selection: the form works without this (tick boxes one by one, then Review…).
  document.querySelectorAll("form.bulk").forEach(function (form) {
    var boxes = Array.prototype.slice.call(form.querySelectorAll("input[type=checkbox][name=item]"));
    var count = form.querySelector("[data-selection-count]");
    var header = form.querySelector("th[data-select-all]");
    if (!boxes.length) { return; }
    var all = null;
    if (header) {
      all = document.createElement("input");
      all.type = "checkbox";
      all.className = "select-all";
      all.setAttribute("aria-label", "Select every library on this page");
      header.insertBefore(all, header.firstChild);
      all.addEventListener("change", function () {
        boxes.forEach(function (box) { box.checked = all.checked; });
        update();
      });
    }
    function update() {
      var chosen = boxes.filter(function (box) { return box.checked; }).length;
      if (all) {
        all.checked = chosen === boxes.length;
        all.indeterminate = chosen > 0 && chosen < boxes.length;
      }
      if (count) {
        count.textContent = chosen === 0 ? "Select libraries above (up to 50), then:"
          : chosen + (chosen === 1 ? " library" : " libraries") + " selected:";
      }
      form.classList.toggle("has-selection", chosen > 0);
    }
    // Shift-click ticks (or unticks) every box between the last one clicked and this one.
    var last = null;
    boxes.forEach(function (box) {
      box.addEventListener("click", function (event) {
        if (event.shiftKey && last !== null && last !== box) {
          var from = boxes.indexOf(last), to = boxes.indexOf(box);
          boxes.slice(Math.min(from, to), Math.max(from, to) + 1).forEach(function (other) { other.checked = box.checked; });
        }
        last = box;
        update();
      });
      box.addEventListener("change", update);
    });
    keepDraft(form, boxes);
    update();
  });

  // What is ticked and typed in a list's bulk form is kept in this tab, so a reload (or a page
  // the browser drops and opens again) brings it back; sending it for review, or signing out,
  // lets it go. The server brings a draft back itself after a review's Cancel or a row's button
  // sent without script: that one wins.
  function keepDraft(form, boxes) {
    var store;
    try { store = window.sessionStorage; } catch (e) { return; }
    if (!store) { return; }
    var nameBox = document.querySelector(".user .username");
    var who = nameBox ? nameBox.textContent : "";
    var key = "typed:bulk|" + location.pathname + location.search;
    var fields = ["decision", "reason_preset", "reason"].map(function (name) { return form.querySelector("[name=" + name + "]"); }).filter(Boolean);
    function save() {
      var entry = { at: Date.now(), who: who, sent: false, fields: {} };
      entry.items = boxes.filter(function (box) { return box.checked; }).map(function (box) { return box.value; });
      fields.forEach(function (field) { entry.fields[field.name] = field.value; });
      // The decision's picker always has a value: only ticks, a preset or typed words are work.
      if (!entry.items.length && !(entry.fields.reason || "").trim() && !entry.fields.reason_preset) { store.removeItem(key); return; }
      try { store.setItem(key, JSON.stringify(entry)); } catch (e) { /* full: nothing kept */ }
    }
    // A field still as the page came (a select has no defaultValue: its first option, or the one
    // marked selected, is what it came with).
    function pristine(field) {
      if (field.tagName.toLowerCase() !== "select") { return field.value === field.defaultValue; }
      var initial = Array.prototype.findIndex.call(field.options, function (option) { return option.defaultSelected; });
      return field.selectedIndex === Math.max(0, initial);
    }
    var kept = null;
    try { kept = JSON.parse(store.getItem(key) || "null"); } catch (e) { kept = null; }
    var untouched = !openedWithDraft && !boxes.some(function (box) { return box.checked; });
    if (kept && kept.who === who && untouched && Date.now() - kept.at < 60 * 60 * 1000) {
      boxes.forEach(function (box) { if (!box.disabled && kept.items.indexOf(box.value) >= 0) { box.checked = true; } });
      fields.forEach(function (field) { if (typeof kept.fields[field.name] === "string" && pristine(field)) { field.value = kept.fields[field.name]; } });
    }
    save();
    form.addEventListener("change", save);
    form.addEventListener("input", save);
    form.addEventListener("submit", function (event) {
      // Only the bulk form's own Review…: a row's button (claim, approve) leaves the draft in place.
      if (!event.submitter || !event.submitter.closest("[data-item]")) { store.removeItem(key); }
    });
  }

  // The summary's Print button (the browser's own Print works without script).
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });

  // Screen readers hear what a shortcut did.
  var live = document.createElement("div");
  live.className = "visually-hidden";
  live.setAttribute("aria-live", "polite");
  live.id = "keyboard-live";
  document.body.appendChild(live);
  function say(text) { live.textContent = ""; window.setTimeout(function () { live.textContent = text; }, 30); }

  function within(scope, key) { return scope && scope.querySelector("[data-key=" + key + "]"); }
  // A key never does what cannot be undone (a photo used replaces the old one for good): such a
  // button (data-confirm-key) first asks, in its own words, what it does; Escape or Cancel leaves
  // everything as it was.
  function confirmFirst(element, name) {
    var ask = document.createElement("dialog");
    ask.className = "confirm-key";
    ask.setAttribute("aria-labelledby", "confirm-key-title");
    var title = document.createElement("h2");
    title.id = "confirm-key-title";
    title.textContent = element.textContent.trim() + (name ? " for " + name : "") + "?";
    var why = document.createElement("p");
    var hint = element.getAttribute("aria-describedby") && document.getElementById(element.getAttribute("aria-describedby"));
    why.textContent = hint ? hint.textContent.trim() : "";
    var buttons = document.createElement("form");
    buttons.method = "dialog";
    buttons.className = "confirm-key-buttons";
    var cancel = document.createElement("button");
    cancel.value = "cancel";
    cancel.textContent = "Cancel";
    var yes = document.createElement("button");
    yes.value = "yes";
    yes.className = element.className.indexOf("danger") >= 0 ? "danger" : "primary";
    yes.textContent = element.textContent.trim();
    buttons.appendChild(cancel);
    buttons.appendChild(yes);
    ask.appendChild(title);
    ask.appendChild(why);
    ask.appendChild(buttons);
    document.body.appendChild(ask);
    ask.addEventListener("close", function () {
      var chosen = ask.returnValue === "yes";
      ask.remove();
      if (chosen) { element.click(); } else { say("Nothing was done."); var row = element.closest("[data-row]"); if (row) { row.focus({ preventScroll: true }); } }
    });
    ask.showModal();
    // Cancel has the focus: a habitual Enter after the key asks nothing of the photo.
    cancel.focus();
  }
  function press(element) {
    if (!element) { return false; }
    if (element.hasAttribute("data-confirm-key")) {
      var owner = element.closest("[data-row]");
      confirmFirst(element, owner ? rowName(owner) : "");
      return true;
    }
    if (element.tagName.toLowerCase() === "select") { element.scrollIntoView({ block: "center" }); element.focus(); } else { element.click(); }
    return true;
  }

  // Lists: a visible focus moves between rows.
  // A row brought into view is never left under the sticky bulk bar (WCAG 2.4.11).
  function reveal(row) {
    row.scrollIntoView({ block: "nearest" });
    var bar = document.querySelector("form.bulk .bulk-bar");
    if (!bar) { return; }
    var covered = row.getBoundingClientRect().bottom - bar.getBoundingClientRect().top;
    if (covered > 0 && getComputedStyle(bar).position === "sticky") { window.scrollBy(0, covered + 8); }
  }
  window.consoleReveal = reveal;
  var list = document.querySelector("[data-keyboard-list]");
  var rows = list ? Array.prototype.slice.call(list.querySelectorAll("[data-row]")) : [];
  var current = -1;
  function rowName(row) { var link = row.querySelector("a"); return link ? link.textContent.trim() : "row"; }
  function focusRow(index) {
    if (!rows.length) { return; }
    current = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach(function (row, i) { row.classList.toggle("keyboard-focus", i === current); });
    var row = rows[current];
    row.tabIndex = -1;
    row.focus({ preventScroll: true });
    reveal(row);
    var decided = row.classList.contains("decided") || row.classList.contains("live-decided") ? ", already decided" : "";
    say("Row " + (current + 1) + " of " + rows.length + ": " + rowName(row) + decided);
  }
  function focusedRow() {
    // A decision sent in place moves the focus on by itself: follow it.
    var marked = list && list.querySelector(".keyboard-focus");
    if (marked && rows.indexOf(marked) >= 0) { current = rows.indexOf(marked); }
    return current >= 0 ? rows[current] : null;
  }

  var listKeys = {
    j: function () { focusedRow(); focusRow(current + 1); },
    k: function () { focusedRow(); focusRow(current < 0 ? 0 : current - 1); },
    x: function () {
      var row = focusedRow(), box = row && row.querySelector("input[type=checkbox]");
      if (!box) { say("This row cannot be selected."); return; }
      box.checked = !box.checked;
      box.dispatchEvent(new Event("change"));
      say((box.checked ? "Selected " : "Unselected ") + rowName(row));
    },
    o: function () { var row = focusedRow(); if (row && row.dataset.open) { window.location.href = row.dataset.open; } },
    a: function () {
      var row = focusedRow();
      if (!row) { say("Move to a row with j first."); return; }
      var approve = within(row, "approve");
      if (!approve) { say("This row cannot be approved here."); return; }
      // A row decided or claimed elsewhere says why nothing happens, in the row's own words.
      if (approve.disabled || approve.getAttribute("aria-disabled") === "true" || !approve.isConnected) {
        var why = row.querySelector("[data-live-note]:not([hidden])") || row.querySelector(".claim-other .claim-text:not([hidden])");
        say(rowName(row) + ": " + (why ? why.textContent.trim() : "it cannot be decided here now") +
          (row.classList.contains("live-claimed") ? ". Nothing was sent: open it with o to decide anyway." : ". Nothing was sent."));
        return;
      }
      // A row with a strong reason to look offers its page (Compare… or Look first…), not an approval.
      var opens = approve.tagName.toLowerCase() === "a";
      var asks = approve.hasAttribute("data-confirm-key");
      press(approve);
      // The button's own verb: Approve, Resolve (a report), Use this photo (asked first).
      var verb = approve.textContent.trim();
      say(opens ? "Opening " + rowName(row) + " to look first" : asks ? verb + " for " + rowName(row) + "? Confirm or press Escape."
        : verb.replace(/e$/, "") + "ing " + rowName(row));
    },
    r: function () {
      // A library's rejection needs its reason, on its page; a report's Dismiss and a photo's Reject are one click, as with the mouse.
      var row = focusedRow(), control = within(row, "reject");
      if (!control) { say(row ? "This row cannot be rejected here." : "Move to a row with j first."); return; }
      if (control.href) { window.location.href = control.href; return; }
      // A photo's Reject… opens its reason: the reason's picker takes the focus, nothing is sent yet.
      if (control.tagName.toLowerCase() === "summary") {
        var details = control.closest("details");
        if (details) { details.open = true; }
        var picker = details && details.querySelector("select");
        if (picker) { picker.focus(); }
        say("Choose a reason for rejecting " + rowName(row) + ", then Reject photo");
        return;
      }
      say("Rejecting " + rowName(row));
      control.click();
    },
    A: function () {
      var form = list.closest("form"), chosen = form && form.querySelectorAll("input[name=item]:checked").length;
      if (!form || !form.querySelector("select[name=decision]")) { say("This list has no bulk decisions."); return; }
      if (!chosen) { say("Select rows with x first."); return; }
      form.querySelector("select[name=decision]").value = "approve";
      say("Reviewing the approval of " + chosen + " selected");
      form.requestSubmit ? form.requestSubmit() : form.submit();
    },
  };

  // A library's page: decide, claim, previous and next.
  var decide = document.querySelector("section.decide");
  var itemKeys = {
    a: function () { if (!press(within(decide, "approve"))) { say("It cannot be approved now."); } },
    r: function () { if (!press(within(decide, "reject"))) { say("It cannot be rejected now."); } },
    n: function () { if (!press(document.querySelector("[data-key=next]"))) { say("This is the last one in the list."); } },
    p: function () { if (!press(document.querySelector("[data-key=previous]"))) { say("This is the first one in the list."); } },
    c: function () {
      var button = document.querySelector(".claim-button");
      if (button) { button.click(); say("Claiming it"); } else { say(document.querySelector(".claim-mine") ? "You are already reviewing it." : "It cannot be claimed."); }
    },
  };
  var keys = list ? listKeys : decide ? itemKeys : {};
  // A list's "Reject…" opens a library's page at #decide: the reason's picker takes the focus.
  // Only a picker: a report's Dismiss is a button, and an address must never press it.
  var rejectControl = within(decide, "reject");
  // After the load: the browser's own move to #decide would otherwise take the focus back to the page.
  if (decide && window.location.hash === "#decide" && rejectControl && rejectControl.tagName.toLowerCase() === "select") {
    var focusReason = function () { window.setTimeout(function () { press(rejectControl); }, 0); };
    if (document.readyState === "complete") { focusReason(); } else { window.addEventListener("load", focusReason); }
  }

  // The keys this page answers, in its own words.
  var bulk = list && list.closest("form") && list.closest("form").querySelector("select[name=decision]");
  var help = list ? [
    ["j / k", "next / previous row"], ["o or Enter", "open the row"], ["a", "approve (a report: resolve; a photo: use it)"],
    ["r", "reject: a library's reason, a report's dismissal, a photo's reason"],
  ].concat(bulk ? [["x", "select the row"], ["shift + a", "review approving the selected rows"]] : []) : decide ? [
    ["a", "approve (a report: resolve)"], ["r", "reject: the reason (a report: dismiss)"], ["n / p", "next / previous in this list"],
    ["c", "I'm reviewing this"],
  ] : [];
  help = help.concat([
    ["/", "search"], ["g then d l r p a s", "go to dashboard, libraries, reports, photos, audit, statistics"],
    ["?", "this list"], ["Escape", "close it, or cancel a confirmation"],
  ]);
  var dialog = null;
  function showHelp() {
    if (!dialog) {
      dialog = document.createElement("dialog");
      dialog.className = "shortcuts";
      dialog.setAttribute("aria-label", "Keyboard shortcuts");
      var html = "<h2>Keyboard shortcuts</h2><dl>";
      help.forEach(function (pair) { html += "<dt><kbd>" + pair[0] + "</kbd></dt><dd>" + pair[1] + "</dd>"; });
      dialog.innerHTML = html + "</dl><form method=\"dialog\"><button>Close</button></form>";
      document.body.appendChild(dialog);
    }
    dialog.showModal();
  }

  // Where shortcuts work, a button says so (and opens the list for the mouse too).
  var host = (list || decide) && document.querySelector(".order-switch, .item-nav");
  if (host) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "small shortcuts-button";
    button.innerHTML = "Keyboard shortcuts <kbd>?</kbd>";
    button.addEventListener("click", showHelp);
    host.appendChild(button);
  }

  var pending = null;
  var targets = { d: "/", l: "/libraries", r: "/reports", p: "/photos", a: "/audit", s: "/statistics" };
  document.addEventListener("keydown", function (event) {
    var target = event.target, tag = (target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable || event.metaKey || event.ctrlKey || event.altKey) { return; }
    // A dialog (the shortcuts, a key's confirmation) has the keys to itself.
    if (document.querySelector("dialog[open]")) { return; }
    if (event.key === "Escape") {
      var cancel = document.querySelector("[data-key=cancel]");
      if (cancel) { cancel.click(); }
      return;
    }
    if (event.key === "?") { event.preventDefault(); showHelp(); return; }
    if (event.key === "/") {
      var search = document.querySelector("input[type=search]");
      if (search) { event.preventDefault(); search.focus(); }
      return;
    }
    if (pending === "g") {
      pending = null;
      if (targets[event.key]) { window.location.href = targets[event.key]; }
      return;
    }
    if (event.key === "g") { pending = "g"; return; }
    // Enter on a focused row opens it; on a link or button it does what it always does.
    if (event.key === "Enter" && list && target === focusedRow()) { event.preventDefault(); listKeys.o(); return; }
    var action = keys[event.key];
    if (action) { event.preventDefault(); action(); }
  });
})();

// The photo viewer's swipe: the slider reveals the proposed photo over the current one.
(function () {
  "use strict";
  document.querySelectorAll("[data-swipe]").forEach(function (viewer) {
    var range = viewer.querySelector("[data-swipe-range]");
    if (!range) { return; }
    function follow() { viewer.style.setProperty("--reveal", range.value + "%"); }
    range.addEventListener("input", follow);
    follow();
  });
})();

// A warning a few minutes before the session ends for lack of activity, with a button that
// keeps it going. Without script the footer says when it ends; a decision sent after that
// is kept through sign-in either way.
(function () {
  "use strict";
  var hint = document.querySelector("[data-session-ends-in]");
  if (!hint) { return; }
  var span = parseInt(hint.getAttribute("data-session-ends-in"), 10);
  if (!(span > 0)) { return; }
  var warnBefore = 5 * 60 * 1000;
  var deadline = Date.now() + span * 1000;
  var banner = null;
  // After Stay signed in, a quiet spell: with an idle timeout shorter than the warning's lead,
  // the next tick would otherwise bring the warning straight back.
  var quietUntil = 0;
  // Set once Stay signed in found the session already gone: the countdown must not talk over that.
  var knownEnded = false;
  function minutes(ms) { var m = Math.ceil(ms / 60000); return m === 1 ? "1 minute" : m + " minutes"; }
  var words = null;
  var extend = null;
  function show(text, canExtend) {
    if (!banner) {
      banner = document.createElement("div");
      banner.className = "session-warning";
      banner.setAttribute("role", "alert");
      words = document.createElement("span");
      extend = document.createElement("button");
      extend.type = "button";
      extend.textContent = "Stay signed in";
      extend.addEventListener("click", function () {
        // A signed-in page, not followed when it redirects: only a live session answers it
        // (an ended one is sent to sign-in), and asking for it counts as activity.
        fetch("/", { credentials: "same-origin", cache: "no-store", redirect: "manual" }).then(function (answer) {
          if (answer.type === "opaqueredirect" || !answer.ok) {
            knownEnded = true;
            words.textContent = "Your session has already ended: reload the page to sign in again (what you typed here is kept when you send it).";
            extend.remove();
            return;
          }
          deadline = Date.now() + span * 1000;
          quietUntil = Date.now() + Math.min(60000, span * 500);
          banner.remove();
          banner = null;
        });
      });
      banner.appendChild(words);
      banner.appendChild(document.createTextNode(" "));
      banner.appendChild(extend);
      var main = document.getElementById("main");
      main.parentNode.insertBefore(banner, main);
    }
    if (words.textContent !== text) { words.textContent = text; }
    extend.hidden = !canExtend;
  }
  function tick() {
    if (knownEnded) { return; }
    var left = deadline - Date.now();
    if (left > 0 && Date.now() < quietUntil) {
      window.setTimeout(tick, quietUntil - Date.now());
      return;
    }
    if (left <= 0) {
      show("Your session has ended. Anything you send now is kept: you are asked to sign in, then shown it again to send.", false);
      return;
    }
    if (left <= warnBefore) {
      show("Your session ends in " + minutes(left) + " unless you open a page or stay signed in.", true);
    }
    window.setTimeout(tick, Math.min(15000, Math.max(1000, left - warnBefore)));
  }
  tick();
})();

// Open lists follow what colleagues do (server-sent events from /events, fed by the console's
// own database): a row decided or claimed elsewhere says so and its one-click buttons stop
// applying; new submissions are announced above the list instead of moving rows under the
// pointer. One stream per visible tab: a hidden tab closes its stream and catches up on return.
(function () {
  var announce = document.querySelector("[data-live-new]");
  if (!window.EventSource || (!document.querySelector("[data-item], [data-live-banner], [data-live-count]") && !announce)) { return; }
  // From the change the page was made at: what happens before its stream opens is not missed.
  var source = null, lastId = document.body.dataset.liveAfter || "", newCount = 0;

  function rowFor(kind, key) {
    var escaped = window.CSS && CSS.escape ? CSS.escape(kind + ":" + key) : (kind + ":" + key).replace(/["\\]/g, "\\$&");
    return document.querySelector("[data-item=\"" + escaped + "\"]");
  }
  // Decided elsewhere: nothing in the row decides it any more. Claimed by someone else: its
  // one-click decisions and the claim button wait (its page still offers "decide anyway").
  var ONE_CLICK = "button[data-key=approve], a[data-key=approve], button[name=quick], button[name=decision], .claim-button";
  var EVERY_CONTROL = "button, input[type=checkbox], a[data-key]";
  function disable(control) {
    if (control.tagName.toLowerCase() === "a") {
      if (!control.dataset.liveHref) { control.dataset.liveHref = control.getAttribute("href"); }
      control.removeAttribute("href"); control.setAttribute("aria-disabled", "true");
    } else if (!control.disabled) { control.disabled = true; control.dataset.liveDisabled = "1"; }
  }
  function restore(control) {
    if (control.dataset.liveHref) { control.setAttribute("href", control.dataset.liveHref); control.removeAttribute("aria-disabled"); delete control.dataset.liveHref; }
    else if (control.dataset.liveDisabled) { control.disabled = false; delete control.dataset.liveDisabled; }
  }
  function setControls(row, waiting, claimedByOther) {
    row.querySelectorAll(EVERY_CONTROL).forEach(restore);
    // A decided row's own Undo (put there by a decision sent in place) is the one control it keeps.
    if (!waiting) { row.querySelectorAll(EVERY_CONTROL).forEach(function (control) { if (!control.closest("form.flash-undo")) { disable(control); } }); }
    else if (claimedByOther) { row.querySelectorAll(ONE_CLICK).forEach(disable); }
  }
  // An item's own page: what happened elsewhere, at the top, before anyone clicks.
  function showBanner(data) {
    var banner = document.querySelector("[data-live-banner=\"" + (data.kind + ":" + data.key).replace(/["\\]/g, "\\$&") + "\"]");
    if (!banner) { return; }
    var text = !data.waiting && data.note ? data.note + ". This page shows it as it was when you opened it: reload before deciding."
      : data.claimedByOther ? data.claim + "." : "";
    banner.textContent = text;
    banner.hidden = !text;
  }
  function showItem(data) {
    showBanner(data);
    var row = rowFor(data.kind, data.key);
    if (!row) { return; }
    var note = row.querySelector("[data-live-note]");
    if (note) {
      note.textContent = data.note || data.claim;
      note.hidden = !(data.note || data.claim);
      // A claim shown here counts down, and goes when it runs out (see tickClaims).
      if (!data.note && data.claimedByOther && data.claimEndsAt) {
        note.dataset.claimEnds = data.claimEndsAt;
        note.dataset.claimHolder = data.claimHolder;
        window.setTimeout(tickClaims, 0);
      } else { delete note.dataset.claimEnds; delete note.dataset.claimHolder; }
    }
    row.classList.toggle("live-decided", !data.waiting);
    var badge = row.querySelector(".status");
    if (badge && data.status) { badge.textContent = data.status; badge.className = "status status-" + data.status; }
    row.classList.toggle("live-claimed", data.claimedByOther);
    // The claim badge the page was made with: its words give way to the live note, and it goes
    // once the claim does (its Take over… would only say there is nothing to take over).
    var other = row.querySelector(".claim-other");
    if (other) {
      other.hidden = !data.claimedByOther;
      // Its countdown follows the claim as it is now (renewed, taken over, or none).
      if (data.claimedByOther && data.claimEndsAt) { other.dataset.claimEnds = data.claimEndsAt; } else { delete other.dataset.claimEnds; }
      var words = other.querySelector(".claim-text");
      if (words) { words.hidden = true; }
    }
    setControls(row, data.waiting, data.claimedByOther);
  }
  // Claims run out without anyone doing anything: every 20 s, each claim on the page says how
  // long it has left, and one that has run out goes, its row's buttons applying again.
  var claimTimer = null;
  function tickClaims() {
    var now = Date.now(), soonest = Infinity;
    if (claimTimer) { window.clearTimeout(claimTimer); claimTimer = null; }
    document.querySelectorAll("[data-claim-ends]").forEach(function (element) {
      var ends = Date.parse(element.dataset.claimEnds);
      if (!ends) { return; }
      var left = Math.ceil((ends - now) / 60000);
      if (left > 0) {
        soonest = Math.min(soonest, ends);
        var words = left + " min left";
        if (element.hasAttribute("data-live-note") && element.dataset.claimHolder) { element.textContent = element.dataset.claimHolder + " is reviewing · " + words; }
        var span = element.querySelector(".claim-left");
        if (span) { span.textContent = words; }
        return;
      }
      delete element.dataset.claimEnds;
      element.hidden = true;
      var row = element.closest("[data-item]");
      if (row && !row.classList.contains("live-decided")) {
        row.classList.remove("live-claimed");
        row.querySelectorAll(ONE_CLICK).forEach(restore);
      }
    });
    // The next claim to run out goes the moment it does, not up to 20 s later.
    if (soonest - now < 20000) { claimTimer = window.setTimeout(tickClaims, Math.max(0, soonest - now) + 200); }
  }
  window.setInterval(tickClaims, 20000);
  tickClaims();
  function showNew(data) {
    if (!announce || announce.dataset.liveNew !== data.kind) { return; }
    newCount += data.count;
    announce.hidden = false;
    var link = announce.querySelector("a") || announce.appendChild(document.createElement("a"));
    link.href = window.location.pathname + window.location.search;
    link.textContent = newCount + (newCount === 1 ? " new submission" : " new submissions") + " — show";
  }
  function open() {
    if (source || document.hidden) { return; }
    source = new EventSource("/events" + (lastId ? "?after=" + encodeURIComponent(lastId) : ""));
    source.addEventListener("item", function (event) { lastId = event.lastEventId || lastId; showItem(JSON.parse(event.data)); });
    source.addEventListener("submitted", function (event) { showNew(JSON.parse(event.data)); });
    // The waiting counts in the navigation and on the dashboard.
    source.addEventListener("counts", function (event) {
      var counts = JSON.parse(event.data);
      document.querySelectorAll("[data-live-count]").forEach(function (count) {
        var value = counts[count.dataset.liveCount];
        if (typeof value === "number" && count.textContent !== String(value)) { count.textContent = String(value); }
      });
    });
    source.addEventListener("reload", function () {
      var place = announce || document.querySelector("[data-live-banner]");
      if (!place) { return; }
      place.hidden = false;
      place.textContent = "This page missed changes while it was away: ";
      var link = place.appendChild(document.createElement("a"));
      link.href = window.location.href;
      link.textContent = "reload";
    });
    // EventSource gives up for good on an answer it cannot use (too many open pages, signed
    // out): try again in half a minute; a signed-out page is refused again, harmlessly.
    source.onerror = function () {
      if (source && source.readyState === EventSource.CLOSED) { close(); window.setTimeout(open, 30000); }
    };
  }
  function close() { if (source) { source.close(); source = null; } }
  document.addEventListener("visibilitychange", function () { if (document.hidden) { close(); } else { open(); } });
  window.addEventListener("pagehide", close);
  open();
})();

// Decisions in place: with script, a row's one-click decision (Approve, Resolve, Dismiss, Use
// this photo) is sent without leaving the list: the row says what became of it (the event
// stream keeps it up to date), focus moves to the next row and the scroll stays. Anything but a
// plain success (a confirmation to answer, an error, a session that ended) is sent again the
// ordinary way, so it shows exactly as it would without script.
(function () {
  if (!window.fetch || !window.FormData || !window.DOMParser) { return; }
  function sendNormally(form, submitter) {
    form.dataset.sendingNormally = "1";
    if (form.requestSubmit) { form.requestSubmit(submitter); } else { submitter.click(); }
  }
  // The fields as the browser would send them for this button: the form's, then the button's own.
  function formBody(form, submitter) {
    var body = new URLSearchParams(new FormData(form));
    if (submitter.name) { body.append(submitter.name, submitter.value); }
    return body;
  }
  function showFlash(page, row, posted) {
    var flash = page.querySelector(".flash");
    var note = row.querySelector("[data-live-note]");
    if (note && flash) {
      // The row says it in a few words (its first sentence); the message above says it all.
      var said = (flash.childNodes[0] ? flash.childNodes[0].textContent : flash.textContent).trim();
      // Its first sentence, never cut at a colon ("Approved: Corner Books in Florence." is one
      // sentence); a long one is cut at its colon, else shortened.
      // A short message whole: a name such as "St. Anne's Box" has a full stop of its own.
      var sentence = said.length <= 90 ? null : said.match(/^.*?[.!?](?=\s|$)/);
      var first = sentence ? sentence[0] : said;
      var colon = first.indexOf(": ");
      if (first.length > 90 && colon > 20) { first = first.slice(0, colon) + "."; }
      note.textContent = first.length > 90 ? first.slice(0, 88) + "…" : first;
      note.hidden = false;
    }
    // Its Undo goes where the person acted too (on a phone the message on top is out of view).
    var undo = flash && flash.querySelector("form.flash-undo");
    // Only the Undo of the decision this row sent (its decide address).
    if (undo && new URL(undo.getAttribute("action"), window.location.href).pathname !== new URL(posted, window.location.href).pathname) { undo = null; }
    var placed = row.querySelector("form.flash-undo");
    if (placed) { placed.remove(); }
    if (undo && note) { note.insertAdjacentElement("afterend", document.importNode(undo, true)); }
    var current = document.querySelector(".flash");
    if (flash) {
      var copy = document.importNode(flash, true);
      if (current) { current.replaceWith(copy); } else { var main = document.querySelector("main"); if (main) { main.insertBefore(copy, main.firstChild); } }
    }
  }
  // The Pending actions panel as the answer's page has it: the decision just sent is in it.
  function refreshPanel(page) {
    var fresh = page.querySelector("details.pending-actions"), mine = document.querySelector("details.pending-actions");
    if (!fresh) { if (mine) { mine.remove(); } return; }
    fresh = document.importNode(fresh, true);
    if (mine) { fresh.open = mine.open || fresh.open; mine.replaceWith(fresh); return; }
    var main = document.getElementById("main");
    if (main) { main.parentNode.insertBefore(fresh, main); }
  }
  function focusNext(row) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("[data-row]"));
    var next = rows.slice(rows.indexOf(row) + 1).find(function (candidate) { return !candidate.classList.contains("live-decided") && !candidate.classList.contains("decided"); });
    if (!next) { return; }
    rows.forEach(function (candidate) { candidate.classList.toggle("keyboard-focus", candidate === next); });
    next.tabIndex = -1;
    next.focus({ preventScroll: true });
    if (window.consoleReveal) { window.consoleReveal(next); }
  }
  var sending = Promise.resolve();
  // A list's own address: the bulk draft a row's button sends back (without script) is not part of it.
  function listAddress(url) {
    var query = url.search.slice(1).split("&").filter(function (pair) { return pair && pair.indexOf("bulk_") !== 0; }).join("&");
    return url.pathname + (query ? "?" + query : "");
  }
  // Screen readers hear what became of a claim: its badge changes in the row, nothing else moves.
  var claimSaid = document.createElement("div");
  claimSaid.className = "visually-hidden";
  claimSaid.setAttribute("role", "status");
  document.body.appendChild(claimSaid);
  // A claim or release sent in place: the row's claim badge as the answer's page has it, focus
  // on its new button, and nothing else on the page touched (ticks, typed reasons, the scroll).
  function showClaim(page, row, flash) {
    var answered = page.querySelector("[data-item=\"" + row.dataset.item.replace(/["\\]/g, "\\$&") + "\"]");
    var fresh = answered && answered.querySelector(".claim");
    var mine = row.querySelector(".claim");
    // The row is not on the answer's page (the list moved on): its badge stays as it is.
    if (!answered) { claimSaid.textContent = flash ? flash.textContent.trim() : ""; return; }
    if (fresh) {
      fresh = document.importNode(fresh, true);
      if (mine) { mine.replaceWith(fresh); } else {
        var note = row.querySelector("[data-live-note]");
        if (note) { note.insertAdjacentElement("afterend", fresh); } else { row.appendChild(fresh); }
      }
      var button = fresh.querySelector("button");
      if (button) { button.focus({ preventScroll: true }); }
    } else if (mine) { mine.remove(); }
    claimSaid.textContent = flash ? flash.textContent.trim() : "";
  }
  document.addEventListener("submit", function (event) {
    var form = event.target, submitter = event.submitter;
    if (!submitter || form.dataset.sendingNormally) { return; }
    var isClaim = submitter.matches("button.claim-button, button.release-button");
    if (!isClaim && !submitter.matches("button[name=quick], button[name=decision], button[data-in-place]")) { return; }
    var row = submitter.closest("[data-item]");
    if (!row) { return; }
    event.preventDefault();
    var list = listAddress(window.location);
    row.classList.add("live-sending");
    row.querySelectorAll("button").forEach(function (button) { button.disabled = true; button.dataset.liveDisabled = "1"; });
    // A button's formAction is the page's own address when it has no formaction of its own.
    var posted = submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
    var body = formBody(form, submitter);
    // One send at a time: the console keeps one message per session, so two answers in flight
    // could hand one row another's outcome (and its Undo).
    sending = sending.then(function () {
      return fetch(posted, { method: "POST", body: body, credentials: "same-origin", redirect: "follow" }).then(function (response) {
        var landed = new URL(response.url);
        if (response.ok && response.redirected && listAddress(landed) === list) {
          return response.text().then(function (html) { return { html: html }; });
        }
        // Answered by a redirect, the send was carried out: show where it led, never send it again.
        // Answered by a page (a confirmation, a form to correct), it is sent the ordinary way.
        return response.redirected ? { go: response.url } : { again: true };
      }, function () { return { again: true }; });
    }).then(function (result) {
      row.classList.remove("live-sending");
      var enable = function () { row.querySelectorAll("[data-live-disabled]").forEach(function (button) { button.disabled = false; delete button.dataset.liveDisabled; }); };
      if (result.again) { enable(); sendNormally(form, submitter); return; }
      if (result.go) { window.location.assign(result.go); return; }
      var page = new DOMParser().parseFromString(result.html, "text/html");
      if (isClaim) {
        enable();
        showClaim(page, row, page.querySelector(".flash"));
        refreshPanel(page);
        return;
      }
      // What became of it (applied, queued, refused, already recorded) is the stream's to say;
      // its buttons stay off until the stream says the row waits again.
      showFlash(page, row, posted);
      refreshPanel(page);
      focusNext(row);
    });
  });
})();

// Ages in rows the server did not mark focusable (and rows live updates add) get reached by
// Tab or a tap too: the stylesheet shows a focused time's exact time beside it.
(function () {
  function reachable(root) {
    root.querySelectorAll("time[title]:not([tabindex])").forEach(function (time) { time.tabIndex = 0; });
  }
  reachable(document);
  new MutationObserver(function () { reachable(document); }).observe(document.body, { childList: true, subtree: true });
})();

// A page made before the console's first reads of Book Corners fills in by itself once they are
// done: it asks for itself again every few seconds (a page view, never a read of Book Corners)
// and shows the answer as soon as it has data. Something typed meanwhile is never thrown away:
// the page then offers the reload instead.
(function () {
  "use strict";
  var notice = document.querySelector("[data-fills-in]");
  if (!notice || !window.fetch || !window.DOMParser) { return; }
  notice.textContent = "The console is still loading Book Corners' data… This page fills in by itself as soon as the first reads are done.";
  var typed = false, started = Date.now();
  document.addEventListener("input", function () { typed = true; });
  function look() {
    // A hidden tab waits: its views would keep the session alive and take another tab's message.
    if (document.hidden) { again(); return; }
    fetch(window.location.href, { credentials: "same-origin", cache: "no-store" }).then(function (answer) {
      if (answer.status >= 500) { throw new Error("no page"); }
      return answer.text().then(function (html) { return { ok: answer.ok, html: html }; });
    }).then(function (answer) {
      var page = new DOMParser().parseFromString(answer.html, "text/html");
      if (answer.ok && page.querySelector("[data-fills-in]")) { again(); return; }
      // Filled in, or no longer a page (an item that turned out not to exist): show what it is now.
      if (!typed) { window.location.reload(); return; }
      notice.textContent = "Book Corners' data is in: ";
      var link = notice.appendChild(document.createElement("a"));
      link.href = window.location.href;
      link.textContent = "show it (reload)";
    }).catch(again);
  }
  function again() { if (Date.now() - started < 10 * 60 * 1000) { window.setTimeout(look, 2000); } }
  again();
})();
