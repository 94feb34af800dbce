// rangecopy dashboard: local times and live updates. Every page reads without this script.
"use strict";

// Times come in UTC; show them in the viewer's zone, keeping UTC in the tooltip.
function localTimes(root) {
  for (const el of root.querySelectorAll("time[datetime]")) {
    const d = new Date(el.getAttribute("datetime"));
    if (isNaN(d)) continue;
    if (!el.title) el.title = el.textContent;
    el.textContent = d.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "medium"});
  }
}

// Update a job's elements in place from an event of /live.
function apply(el, v) {
  for (const f of el.querySelectorAll("[data-f]")) {
    const k = f.dataset.f;
    if (k === "bar") { f.value = v.percent; f.textContent = v.progress; continue; }
    if (k === "state") { f.textContent = v.state; f.className = "state s-" + v.state; continue; }
    if (k === "error") {
      f.hidden = !v.error;
      f.textContent = v.error ? "Last error: " + v.error : "";
      continue;
    }
    if (k in v) f.textContent = v[k];
  }
  if (v.final) el.dataset.ended = "true";
}

function follow() {
  const els = document.querySelectorAll("[data-job]");
  const byId = new Map();
  for (const el of els) {
    if (!el.dataset.job) continue;
    if (!byId.has(el.dataset.job)) byId.set(el.dataset.job, []);
    byId.get(el.dataset.job).push(el);
  }
  if (byId.size === 0 || !window.EventSource) return;
  const q = new URLSearchParams();
  for (const id of byId.keys()) q.append("job", id);
  const es = new EventSource("/live?" + q.toString());
  es.addEventListener("job", (e) => {
    const v = JSON.parse(e.data);
    for (const el of byId.get(v.id) || []) apply(el, v);
    // A job that ended shows its final page on a reload; say so once.
    if (v.final && document.querySelector(".jobpage")) {
      const n = document.createElement("p");
      n.className = "notice"; n.setAttribute("role", "status");
      n.textContent = "The job has ended (" + v.state + "). Reload for its final report.";
      document.querySelector(".jobpage").prepend(n);
    }
  });
  es.addEventListener("end", () => es.close());
}

// Keep a relocation's page current: when /live/relocation says it changed, fetch the page
// again and swap its content in (no reload; the reading position stays).
function followRelocation() {
  const el = document.querySelector("[data-relocation]");
  if (!el || !window.EventSource || !window.fetch) return;
  const es = new EventSource("/live/relocation?id=" + encodeURIComponent(el.dataset.relocation));
  let busy = false;
  es.addEventListener("changed", async () => {
    if (busy) return;
    busy = true;
    try {
      const resp = await fetch(location.pathname, {credentials: "same-origin", headers: {"Accept": "text/html"}});
      if (!resp.ok) return;
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      const fresh = doc.querySelector("#main");
      const main = document.querySelector("#main");
      if (fresh && main) {
        main.innerHTML = fresh.innerHTML;
        localTimes(main);
        confirms();
      }
    } finally {
      busy = false;
    }
  });
  es.addEventListener("end", () => es.close());
}

function confirms() {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (e) => { if (!confirm(form.dataset.confirm)) e.preventDefault(); });
  }
}

document.addEventListener("DOMContentLoaded", () => { localTimes(document); follow(); followRelocation(); confirms(); });
