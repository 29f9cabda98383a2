// Small conveniences only; every page works without this file.
// 1. Show times in the viewer's own time zone (the page shows UTC without script).
// 2. A preset rejection reason is copied into the editable text box.
// 3. Keyboard: "/" focuses the search box, "g d/l/r/p/a/s" goes to a page; the Print button prints.
(function () {
  "use strict";
  var format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  document.querySelectorAll("time[datetime]").forEach(function (element) {
    var date = new Date(element.getAttribute("datetime"));
    if (!isNaN(date)) { element.title = format.format(date); }
  });

  // A picked preset reason lands in the text box, where it can be edited before sending.
  document.querySelectorAll("select[name=reason_preset]").forEach(function (select) {
    var box = select.form && select.form.querySelector("textarea[name=reason]");
    if (!box) { return; }
    select.addEventListener("change", function () {
      if (select.value && (box.value === "" || box.dataset.fromPreset === "1")) {
        box.value = select.value;
        box.dataset.fromPreset = "1";
      }
    });
    box.addEventListener("input", function () { box.dataset.fromPreset = "0"; });
  });

  // The summary's Print button (the browser's own Print works without script).
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });

  var pending = null;
  var targets = { d: "/", l: "/libraries", r: "/reports", p: "/photos", a: "/audit", s: "/statistics" };
  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || event.metaKey || event.ctrlKey || event.altKey) { return; }
    if (event.key === "/") {
      var search = document.querySelector("input[type=search]");
      if (search) { event.preventDefault(); search.focus(); }
      return;
    }
    if (pending === "g" && targets[event.key]) { window.location.href = targets[event.key]; }
    pending = event.key === "g" ? "g" : null;
  });
})();
