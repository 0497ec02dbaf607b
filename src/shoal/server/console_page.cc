#include "shoal/server/console_page.h"

namespace shoal::server {

namespace {

// Element ids are the page's interface for tests (tests/server/console.mjs): #login, #cluster,
// #running, #history, #detail, #stage-graph, #timeline, #explain.
constexpr std::string_view kPage = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shoal console</title>
<style>
  :root { --fg: #1d2733; --muted: #65717e; --line: #d8dee5; --bg: #f6f8fa; --accent: #1f6feb; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
  header { display: flex; align-items: center; gap: 16px; padding: 10px 20px; background: #0d2538;
           color: #fff; }
  header h1 { font-size: 18px; margin: 0; }
  header .who { margin-left: auto; font-size: 13px; opacity: .85; }
  nav button { background: none; border: 0; color: #cfe3f5; font-size: 14px; padding: 6px 10px;
               cursor: pointer; border-radius: 4px; }
  nav button.on { background: #1d4a6e; color: #fff; }
  main { padding: 16px 20px; }
  section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px;
            margin-bottom: 16px; }
  h2 { font-size: 15px; margin: 0 0 10px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
           vertical-align: top; font-size: 13px; }
  th { color: var(--muted); font-weight: 600; }
  td.sql { font-family: ui-monospace, monospace; max-width: 520px; white-space: nowrap;
           overflow: hidden; text-overflow: ellipsis; }
  tr.pick { cursor: pointer; } tr.pick:hover { background: #eef4fb; }
  .state { padding: 1px 6px; border-radius: 8px; font-size: 12px; }
  .alive, .finished { background: #dcf5e3; color: #14532d; }
  .quarantined, .cancelled { background: #fff1c2; color: #6b4a00; }
  .gone, .failed { background: #fde2e1; color: #7f1d1d; }
  .running { background: #dbeafe; color: #1e3a8a; }
  .bar { width: 160px; height: 10px; background: #e5e9ee; border-radius: 5px; overflow: hidden;
         display: inline-block; vertical-align: middle; }
  .bar > div { height: 100%; background: var(--accent); }
  .stages { margin-top: 4px; font-size: 12px; color: #4b5563; }
  .stage-progress .bar { width: 80px; height: 6px; }
  button.cancel { background: #b91c1c; color: #fff; border: 0; border-radius: 4px; padding: 3px 10px;
                  cursor: pointer; }
  .empty { color: var(--muted); font-style: italic; }
  #detail .cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; }
  pre#explain { font: 12px/1.35 ui-monospace, monospace; background: #0f1720; color: #d6e2ee;
                padding: 10px; border-radius: 6px; overflow: auto; max-height: 640px; margin: 0; }
  svg text { font: 11px system-ui, sans-serif; }
  #login { max-width: 320px; margin: 80px auto; }
  #login input { width: 100%; padding: 6px 8px; margin: 4px 0 10px; border: 1px solid var(--line);
                 border-radius: 4px; }
  #login button { padding: 6px 16px; }
  #login-error { color: #b91c1c; min-height: 1.2em; }
  .hidden { display: none !important; }
</style>
</head>
<body>
<header>
  <h1>Shoal</h1>
  <nav id="tabs">
    <button data-view="overview" class="on">Cluster &amp; running</button>
    <button data-view="history">Finished queries</button>
  </nav>
  <span class="who" id="who"></span>
</header>
<main>
  <section id="login" class="hidden">
    <h2>Log in</h2>
    <form id="login-form">
      <label>User <input name="user" id="login-user" autocomplete="username"></label>
      <label>Password <input name="password" id="login-password" type="password"
             autocomplete="current-password"></label>
      <div id="login-error"></div>
      <button type="submit">Log in</button>
    </form>
  </section>
  <div id="view-overview" class="view hidden">
    <section id="cluster"><h2>Cluster</h2><div class="body"></div></section>
    <section id="running"><h2>Running queries</h2><div class="body"></div></section>
  </div>
  <div id="view-history" class="view hidden">
    <section id="history"><h2>Finished queries</h2><div class="body"></div></section>
    <section id="detail" class="hidden">
      <h2 id="detail-title"></h2>
      <div class="cols">
        <div>
          <h2>Stages</h2><div id="stage-graph"></div>
          <h2>Timeline</h2><div id="timeline"></div>
        </div>
        <div><h2>EXPLAIN ANALYZE</h2><pre id="explain"></pre></div>
      </div>
    </section>
  </div>
</main>
<script>
"use strict";
const $ = (s) => document.querySelector(s);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
    (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"];
const stageColour = (s) => PALETTE[s % PALETTE.length];
let view = "overview";
let timer = null;

async function api(path, options = {}) {
  const r = await fetch(path, Object.assign({credentials: "same-origin"}, options));
  if (r.status === 401) { showLogin(); throw new Error("unauthenticated"); }
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function ms(n) {
  if (n < 1000) return n + " ms";
  if (n < 60000) return (n / 1000).toFixed(1) + " s";
  return Math.floor(n / 60000) + " min " + Math.round((n % 60000) / 1000) + " s";
}
function bytes(n) {
  const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; ++i; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
}
function when(unix) { return unix ? new Date(unix).toLocaleTimeString() : "never"; }

function showLogin() {
  clearInterval(timer); timer = null;
  $("#login").classList.remove("hidden");
  document.querySelectorAll(".view").forEach((v) => v.classList.add("hidden"));
}

async function start() {
  const r = await fetch("/api/whoami", {credentials: "same-origin"});
  if (r.status === 401) return showLogin();
  const me = await r.json();
  $("#who").textContent = me.auth_required ? "logged in as " + me.user : "";
  $("#login").classList.add("hidden");
  show(view);
}

function show(name) {
  view = name;
  document.querySelectorAll("#tabs button").forEach(
      (b) => b.classList.toggle("on", b.dataset.view === name));
  document.querySelectorAll(".view").forEach(
      (v) => v.classList.toggle("hidden", v.id !== "view-" + name));
  clearInterval(timer);
  const refresh = name === "overview" ? refreshOverview : refreshHistory;
  refresh().catch(() => {});
  timer = setInterval(() => refresh().catch(() => {}), 1000);
}

async function refreshOverview() {
  const [cluster, running] = await Promise.all([api("/api/cluster"), api("/api/queries")]);
  const w = cluster.workers;
  $("#cluster .body").innerHTML = w.length === 0
    ? '<p class="empty">No workers: queries run on this node (coordinator ' +
      esc(cluster.coordinator.version) + ').</p>'
    : "<table><tr><th>Worker</th><th>State</th><th>Version</th><th>Threads</th>" +
      "<th>Memory used / limit</th><th>Running tasks</th><th>Last contact</th></tr>" +
      w.map((x) => `<tr class="worker"><td>${esc(x.address)}</td>` +
        `<td><span class="state ${esc(x.state)}">${esc(x.state)}</span></td>` +
        `<td>${esc(x.version)}</td><td>${x.threads || ""}</td>` +
        `<td class="memory">${x.memory_used == null ? "n/a" : bytes(x.memory_used) + " / " +
          (x.memory_limit > 0 ? bytes(x.memory_limit) : "unlimited")}</td>` +
        `<td class="running-tasks">${x.running_tasks == null ? "n/a" : x.running_tasks}</td>` +
        `<td title="${esc(x.error)}">${when(x.last_contact_unix_ms)}</td></tr>`).join("") +
      "</table>";
  const q = running.queries;
  $("#running .body").innerHTML = q.length === 0
    ? '<p class="empty">Nothing is running.</p>'
    : "<table><tr><th>Id</th><th>User</th><th>SQL</th><th>Mode</th><th>Elapsed</th>" +
      "<th>Progress</th><th></th></tr>" +
      q.map((x) => {
        const p = x.progress && x.progress.percent != null ? x.progress.percent : null;
        return `<tr class="query" data-id="${x.id}"><td>${x.id}</td><td>${esc(x.user)}</td>` +
          `<td class="sql" title="${esc(x.sql)}">${esc(x.sql)}</td><td>${esc(x.mode)}</td>` +
          `<td>${ms(x.elapsed_ms)}</td><td>` +
          (p == null ? "n/a" : `<span class="bar"><div style="width:${p.toFixed(1)}%"></div></span>` +
            ` <span class="percent">${p.toFixed(0)}%</span> of ${bytes(x.progress.bytes_total)}`) +
          stageProgress(x.progress) + `</td><td><button class="cancel" data-id="${x.id}">Cancel</button></td></tr>`;
      }).join("") + "</table>";
  document.querySelectorAll("button.cancel").forEach((b) => b.onclick = async () => {
    b.disabled = true;
    try { await api(`/api/queries/${b.dataset.id}/cancel`, {method: "POST"}); }
    catch (e) { alert(e.message); }
  });
}

// One line per stage of a distributed query: its scans' share read, or (a stage that reads
// only other stages) its tasks done; rows served, and its tasks running and done on each worker.
function stageProgress(progress) {
  if (!progress || !progress.stages || progress.stages.length === 0) return "";
  return '<div class="stages">' + progress.stages.map((s) => {
    const share = s.percent != null ? s.percent : (s.tasks_total > 0 ? 100 * s.tasks_done / s.tasks_total : 0);
    const what = s.percent != null ? `${s.percent.toFixed(0)}% of ${bytes(s.bytes_total)}`
                                   : `${s.tasks_done}/${s.tasks_total} tasks done`;
    const perWorker = (s.workers || []).map((w) =>
      `<span class="stage-worker" data-worker="${esc(w.worker)}">${esc(w.worker)}: ` +
      `${w.running} running, ${w.done} done</span>`).join("; ");
    return `<div class="stage-progress" data-stage="${s.stage}" title="${s.rows} rows served, ` +
      `${s.tasks_done}/${s.tasks_total} tasks done"><span class="stage-name">s${s.stage}</span> ` +
      `<span class="bar"><div style="width:${share.toFixed(1)}%"></div></span> ` +
      `<span class="stage-what">${what}, ${s.rows} rows</span>` +
      (perWorker ? ` <span class="stage-workers">(${perWorker})</span>` : "") + `</div>`;
  }).join("") + "</div>";
}

async function refreshHistory() {
  const h = await api("/api/history");
  $("#history .body").innerHTML = h.queries.length === 0
    ? '<p class="empty">No finished queries yet.</p>'
    : "<table><tr><th>Id</th><th>User</th><th>SQL</th><th>State</th><th>Rows</th>" +
      "<th>Time</th><th>Stages</th><th>Tasks</th><th>Ended</th></tr>" +
      h.queries.map((x) => `<tr class="pick finished-query" data-id="${x.id}"><td>${x.id}</td>` +
        `<td>${esc(x.user)}</td><td class="sql" title="${esc(x.sql)}">${esc(x.sql)}</td>` +
        `<td><span class="state ${esc(x.state)}" title="${esc(x.error)}">${esc(x.state)}</span></td>` +
        `<td>${x.rows}</td><td>${ms(x.elapsed_ms)}</td><td>${x.num_stages}</td>` +
        `<td>${x.num_tasks}</td><td>${when(x.end_unix_ms)}</td></tr>`).join("") + "</table>";
  document.querySelectorAll("tr.finished-query").forEach(
      (tr) => tr.onclick = () => openQuery(tr.dataset.id));
}

async function openQuery(id) {
  clearInterval(timer); timer = null;  // keep the list still while a query is open
  const q = await api("/api/history/" + id);
  $("#detail").classList.remove("hidden");
  $("#detail").dataset.id = q.id;
  $("#detail-title").textContent = `Query ${q.id} (${q.state}, ${q.rows} rows, ${ms(q.elapsed_ms)})`;
  $("#explain").textContent = q.explain_analyze || q.sql;
  $("#stage-graph").innerHTML = stageGraph(q);
  $("#timeline").innerHTML = timeline(q);
  $("#detail").scrollIntoView();
}

// The stages as boxes from producers (left) to the head (right), an arrow per boundary labelled
// with the rows and bytes that crossed it.
function stageGraph(q) {
  if (q.stages.length === 0) return '<p class="empty">One stage: the query ran on the coordinator.</p>';
  const depth = {0: 0};
  const byId = Object.fromEntries(q.stages.map((s) => [s.stage, s]));
  const level = (id) => id === 0 ? 0 : (depth[id] ??= 1 + level(byId[id] ? byId[id].consumer_stage : 0));
  q.stages.forEach((s) => level(s.stage));
  const maxLevel = Math.max(...Object.values(depth));
  const columns = {};
  const pos = {};
  for (const id of [0, ...q.stages.map((s) => s.stage)]) {
    const l = depth[id]; columns[l] = (columns[l] || 0) + 1;
    pos[id] = {x: 20 + (maxLevel - l) * 290, y: 20 + (columns[l] - 1) * 80};
  }
  const W = 20 + (maxLevel + 1) * 290, H = 40 + Math.max(...Object.values(columns)) * 80;
  let svg = `<svg class="stages" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">` +
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" ' +
    'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#65717e"/></marker></defs>';
  for (const s of q.stages) {
    const a = pos[s.stage], b = pos[s.consumer_stage];
    svg += `<line x1="${a.x + 170}" y1="${a.y + 24}" x2="${b.x}" y2="${b.y + 24}" stroke="#65717e" ` +
      'marker-end="url(#arrow)"/>' +
      `<text x="${(a.x + 170 + b.x) / 2}" y="${(a.y + b.y) / 2 + 18}" text-anchor="middle">` +
      `${s.rows} rows${s.bytes ? ", " + bytes(s.bytes) : ""}</text>`;
  }
  for (const id of Object.keys(pos).map(Number)) {
    const s = byId[id], p = pos[id];
    svg += `<g class="stage" data-stage="${id}"><rect x="${p.x}" y="${p.y}" width="170" height="48" rx="6" ` +
      `fill="${id === 0 ? "#0d2538" : stageColour(id)}" opacity="0.9"/>` +
      `<text x="${p.x + 8}" y="${p.y + 19}" fill="#fff">${id === 0 ? "head" : "stage " + id}</text>` +
      `<text x="${p.x + 8}" y="${p.y + 36}" fill="#fff">${s ? s.tasks + (s.tasks === 1 ? " task, " : " tasks, ") +
        esc(s.exchange) : "on the coordinator"}</text></g>`;
  }
  return svg + "</svg>";
}

// One row per worker, one bar per task, coloured by stage.
function timeline(q) {
  if (q.tasks.length === 0) return '<p class="empty">No distributed tasks.</p>';
  const workers = [...new Set(q.tasks.map((t) => t.worker))].sort();
  const end = Math.max(q.elapsed_ms, ...q.tasks.map((t) => t.end_ms)) || 1;
  const left = 150, width = 560, rowH = 26;
  const H = 30 + workers.length * rowH * 1.0 + 20;
  const x = (t) => left + (t / end) * width;
  let svg = `<svg class="timeline" width="${left + width + 20}" height="${H}">`;
  const lanes = {};
  for (const t of q.tasks) (lanes[t.worker] ??= []).push(t);
  workers.forEach((w, i) => {
    const y = 10 + i * rowH;
    svg += `<text x="4" y="${y + 16}">${esc(w)}</text>` +
      `<line x1="${left}" y1="${y + rowH - 2}" x2="${left + width}" y2="${y + rowH - 2}" stroke="#e5e9ee"/>`;
    const tasks = lanes[w].sort((a, b) => a.stage - b.stage || a.task - b.task);
    const h = Math.max(4, (rowH - 6) / tasks.length);
    tasks.forEach((t, k) => {
      svg += `<rect class="task" data-stage="${t.stage}" data-task="${t.task}" x="${x(t.start_ms)}" ` +
        `y="${y + 2 + k * h}" width="${Math.max(2, x(t.end_ms) - x(t.start_ms))}" height="${h - 1}" ` +
        `fill="${stageColour(t.stage)}"><title>stage ${t.stage} task ${t.task} on ${esc(w)}: ` +
        `${t.start_ms.toFixed(1)}-${t.end_ms.toFixed(1)} ms</title></rect>`;
    });
  });
  const y = 10 + workers.length * rowH + 14;
  svg += `<text x="${left}" y="${y}">0 ms</text><text x="${left + width}" y="${y}" text-anchor="end">` +
    `${end.toFixed(0)} ms</text></svg>`;
  return svg;
}

$("#login-form").onsubmit = async (e) => {
  e.preventDefault();
  $("#login-error").textContent = "";
  const r = await fetch("/api/login", {method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({user: $("#login-user").value, password: $("#login-password").value})});
  if (!r.ok) { $("#login-error").textContent = (await r.json()).error; return; }
  start();
};
document.querySelectorAll("#tabs button").forEach((b) => b.onclick = () => show(b.dataset.view));
start();
</script>
</body>
</html>
)html";

}  // namespace

std::string_view ConsolePageHtml() {
  return kPage;
}

}  // namespace shoal::server
