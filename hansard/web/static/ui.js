// hansard ui: line selection and the conversation panel on the file page. No framework, no
// network but this server; the panel's HTML is rendered (and escaped) by the server.
"use strict";
// Parts of a page that come in their own request (the repository's stats, a session's lines
// alive): [data-src] is replaced by the fragment the server rendered.
(function () {
  Array.prototype.forEach.call(document.querySelectorAll("[data-src]"), function (el) {
    fetch(el.getAttribute("data-src"), { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) { el.innerHTML = html; el.removeAttribute("data-src"); el.classList.add("loaded"); });
  });
})();
(function () {
  var code = document.querySelector(".code[data-conv]");
  if (!code) return;
  var rows = Array.prototype.slice.call(code.querySelectorAll("tr[data-line]"));
  var aside = document.getElementById("conv");
  var sel = -1;
  var pending = null;

  function select(i, scroll) {
    if (i < 0 || i >= rows.length) return;
    if (sel >= 0) rows[sel].classList.remove("sel");
    sel = i;
    rows[i].classList.add("sel");
    rows[i].setAttribute("aria-selected", "true");
    if (scroll) rows[i].scrollIntoView({ block: "nearest" });
  }

  function open(i) {
    select(i, false);
    var n = rows[i].getAttribute("data-line");
    var url = code.getAttribute("data-conv") + "&line=" + encodeURIComponent(n);
    if (pending) pending.abort();
    pending = new AbortController();
    aside.classList.add("open", "loading");
    fetch(url, { signal: pending.signal, credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        aside.innerHTML = html;
        aside.classList.remove("loading");
        aside.setAttribute("data-line", n);
        aside.scrollTop = 0;
        var u = new URL(window.location.href);
        u.searchParams.set("line", n);
        u.hash = "L" + n;
        history.replaceState(null, "", u.toString());
      })
      .catch(function () { aside.classList.remove("loading"); });
  }

  function close() {
    aside.classList.remove("open");
    aside.innerHTML = "";
    aside.removeAttribute("data-line");
  }

  code.addEventListener("click", function (e) {
    var tr = e.target.closest("tr[data-line]");
    if (!tr) return;
    e.preventDefault();
    open(rows.indexOf(tr));
  });
  aside.addEventListener("click", function (e) {
    if (e.target.closest("button.close")) close();
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Enter" && t && (t.tagName === "A" || t.tagName === "BUTTON")) return;  // a focused link opens
    if (e.key === "j" || e.key === "ArrowDown") { select(sel < 0 ? 0 : sel + 1, true); e.preventDefault(); }
    else if (e.key === "k" || e.key === "ArrowUp") { select(sel < 0 ? 0 : sel - 1, true); e.preventDefault(); }
    else if (e.key === "Enter" && sel >= 0) { open(sel); e.preventDefault(); }
    else if (e.key === "Escape") { close(); }
  });
  var first = code.querySelector("tr.sel");
  if (first) {
    sel = rows.indexOf(first);
    first.scrollIntoView({ block: "center" });
  }
})();
