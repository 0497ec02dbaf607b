// The web console of `shoal server --http` (issue 19, docs/console.md), driven in Debian's headless
// chromium through puppeteer-core, on a server with 2 `shoal worker` processes (each with
// `--metrics`) and SCRAM users:
//  1. /metrics of the server and of a worker parse with a strict text-format parser
//     (prometheus_text.mjs), and the API refuses requests without a login (401);
//  2. the page asks for a login; a wrong password is refused, the right one shows the cluster
//     (2 workers, alive);
//  3. a distributed TPC-H query run through the server by node-postgres shows in the running list
//     with its progress, overall and per stage (in the page and in /api/queries);
//  4. another query (a long cross join) shows in pg_stat_activity through the PostgreSQL door, and
//     is cancelled with its Cancel button: its client gets 57014;
//  5. the finished TPC-H query's view has a stage graph and a timeline whose stage and task counts
//     are those of the query's EXPLAIN ANALYZE;
//  6. the counters moved: queries by state, the worker's tasks.
// Screenshots of each view go to the artifact directory (argv[3], else a temporary one; printed).
//
// Usage: node tests/server/console.mjs <path to shoal> [artifact dir]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { ParsePrometheusText, SampleValue } from './prometheus_text.mjs';
import { WaitFor } from '../integration/wait.mjs';

const require = createRequire(import.meta.url);
const pg = require('pg');
const puppeteer = require('puppeteer-core');

const shoal = process.argv[2];
if (!shoal) {
  console.error('usage: node console.mjs <shoal binary> [artifact dir]');
  process.exit(2);
}
const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-console-'));
const artifacts = process.argv[3] ?? path.join(tmp, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const children = [];
let browser = null;
process.on('exit', () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  if (!process.argv[3]) console.log(`artifacts (removed with ${tmp}): ${artifacts}`);
  fs.rmSync(tmp, { recursive: true, force: true });
});
function Fail(message) {
  console.error(`FAIL: ${message}`);
  for (const f of fs.readdirSync(tmp).filter((n) => n.endsWith('.log'))) {
    console.error(`--- ${f}\n` + fs.readFileSync(path.join(tmp, f), 'utf8').split('\n').slice(-15).join('\n'));
  }
  if (browser) browser.close().catch(() => {});
  process.exit(1);
}
function Check(condition, message) {
  if (!condition) Fail(message);
}
const sf = '0.1';

// ---- the cluster ---------------------------------------------------------------------------------
const dataDir = path.join(tmp, 'data');
fs.mkdirSync(dataDir);
for (const user of ['alice', 'root']) {
  const r = spawnSync(shoal, ['server', 'passwd', user, '--data-dir', dataDir],
                      { input: `${user} secret\n`, encoding: 'utf8' });
  Check(r.status === 0, `passwd ${user}: ${r.stderr}`);
}
fs.writeFileSync(path.join(dataDir, 'hba.conf'), 'host all all all scram-sha-256\n');

async function Start(name, args, pattern) {
  const log = path.join(tmp, `${name}.log`);
  const fd = fs.openSync(log, 'w');
  // JSON log lines at info: one grep of a query id must find it on every node (step 5).
  const child = spawn(shoal, [...args, '--log-format', 'json'],
                      { stdio: ['ignore', fd, fd], env: { ...process.env, SHOAL_LOG_LEVEL: 'info' } });
  fs.closeSync(fd);
  children.push(child);
  return WaitFor(() => {
    if (child.exitCode !== null) Fail(`${name} exited: ${fs.readFileSync(log, 'utf8')}`);
    const m = fs.readFileSync(log, 'utf8').match(pattern);
    return m ? m.slice(1) : false;
  }, `${name} to start`, 300000);
}
const workers = [];
const workerMetrics = [];
for (let i = 0; i < 2; ++i) {
  const [address] = await Start(`worker${i}`, ['worker', '--insecure', '--listen', '127.0.0.1:0',
                                               '--threads', '2', '--tpch', sf, '--metrics', '127.0.0.1:0'],
                                /listening on (\S+)\n[^]*metrics on (\S+)\n/);
  const [, metricsUrl] = fs.readFileSync(path.join(tmp, `worker${i}.log`), 'utf8').match(/metrics on (\S+)\n/);
  workers.push(address);
  workerMetrics.push(metricsUrl);
}
const [port, consoleUrl] = await Start('server', [
  'server', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--tpch', sf, '--workers', workers.join(','),
  '--insecure', '--http', '127.0.0.1:0', '--console-admin', 'root'],
  /listening on 127\.0\.0\.1:(\d+)\nconsole on (\S+)\n/);
console.log(`server on ${port}, console on ${consoleUrl}, workers ${workers.join(', ')}`);

async function Metrics(url) {
  const r = await fetch(url);
  Check(r.status === 200, `${url}: ${r.status}`);
  Check(r.headers.get('content-type').startsWith('text/plain; version=0.0.4'), `${url}: content type ${r.headers.get('content-type')}`);
  try {
    return ParsePrometheusText(await r.text());
  } catch (e) {
    Fail(`${url} does not parse: ${e.message}`);
  }
}

// ---- 1. /metrics parse; the API needs a login -----------------------------------------------------
const before = await Metrics(`${consoleUrl}/metrics`);
const workerBefore = await Metrics(workerMetrics[0]);
Check(SampleValue(before, 'shoal_queries_running') === 0, 'shoal_queries_running is not 0 at start');
const tasksBefore = SampleValue(workerBefore, 'shoal_worker_tasks_started_total');
Check(tasksBefore === 0, `worker tasks at start: ${tasksBefore}`);
Check((await fetch(`${consoleUrl}/api/queries`)).status === 401, '/api/queries without a login');
console.log('metrics parse; the API refuses without a login');

// ---- 2. log in --------------------------------------------------------------------------------
browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage();
await page.setViewport({ width: 1400, height: 900 });
page.on('pageerror', (e) => Fail(`the page threw: ${e.message}`));
await page.goto(consoleUrl, { waitUntil: 'load' });
await page.waitForSelector('#login:not(.hidden)', { timeout: 30000 });
await page.screenshot({ path: path.join(artifacts, 'console-login.png') });
await page.type('#login-user', 'alice');
await page.type('#login-password', 'wrong');
await page.click('#login-form button');
await page.waitForFunction(() => document.querySelector('#login-error').textContent.includes('failed'),
                           { timeout: 30000 });
await page.$eval('#login-password', (e) => { e.value = ''; });
await page.type('#login-password', 'alice secret');
await page.click('#login-form button');
await page.waitForSelector('#view-overview:not(.hidden)', { timeout: 30000 });
await page.waitForFunction(() => document.querySelectorAll('#cluster tr.worker').length === 2 &&
                                 document.querySelectorAll('#cluster .state.alive').length === 2,
                           { timeout: 30000 });
const cookies = await page.cookies();
const session = cookies.find((c) => c.name === 'shoal_session');
Check(session && session.httpOnly && session.sameSite === 'Strict', `session cookie: ${JSON.stringify(session)}`);
// Each worker tells its memory used and limit and its running tasks (numbers, not "n/a").
const clusterShown = await page.$$eval('#cluster tr.worker', (rows) => rows.map((r) => ({
  memory: r.querySelector('td.memory').textContent, tasks: r.querySelector('td.running-tasks').textContent })));
const clusterApi = await page.evaluate(async () => (await (await fetch('/api/cluster')).json()).workers);
Check(clusterApi.every((w) => Number.isInteger(w.memory_used) && Number.isInteger(w.memory_limit) &&
                              Number.isInteger(w.running_tasks) && w.memory_limit > 0),
      `cluster API: ${JSON.stringify(clusterApi)}`);
Check(clusterShown.every((w) => !w.memory.includes('n/a') && /^\d+$/.test(w.tasks)),
      `cluster view: ${JSON.stringify(clusterShown)}`);
console.log('login: wrong password refused, cluster shows 2 alive workers, ' +
            `memory ${clusterShown.map((w) => w.memory).join(', ')}, running tasks ${clusterShown.map((w) => w.tasks).join(', ')}`);

// ---- 3. a distributed TPC-H query, seen running with progress ---------------------------------------
async function Client() {
  const c = new pg.Client({ host: '127.0.0.1', port: Number(port), user: 'alice', password: 'alice secret',
                            database: 'shoal' });
  c.on('error', () => {});
  await c.connect();
  return c;
}
const tpchClient = await Client();
// One-row batches make the query slow enough to be watched while it runs (seconds, not ms).
await tpchClient.query('set batch_size = 1');
const q1 = fs.readFileSync(path.join(repo, 'tests', 'data', 'tpch', 'queries', 'q01.sql'), 'utf8').trim()
               .replace(/;$/, '');
const tpch = tpchClient.query(q1).then((r) => r.rows.length, (e) => `error ${e.code} ${e.message}`);
// Its progress per stage: a line per stage in the list, and in the API each stage's numbers, some
// of which move while it runs (a scan stage's bytes or a stage's rows).
await page.waitForFunction(() => [...document.querySelectorAll('#running tr.query')].some(
    (tr) => tr.textContent.includes('lineitem') && tr.querySelector('.percent') !== null &&
            tr.querySelectorAll('.stage-progress').length >= 2),
                           { timeout: 120000 });
const percent = await page.$eval('#running tr.query .percent', (e) => e.textContent);
// While it runs, its tasks are on the workers: the cluster view counts them (watched at the
// same time as the stages, both before the query ends).
const busyPromise = page.waitForFunction(async () => {
  const workers = (await (await fetch('/api/cluster')).json()).workers;
  return workers.some((w) => w.running_tasks > 0) ? workers.map((w) => w.running_tasks) : false;
}, { timeout: 60000, polling: 250 }).then((h) => h.jsonValue(), (e) => `not seen: ${e.message}`);
const stagesMoving = await page.waitForFunction(async () => {
  const r = await fetch('/api/queries');
  const q = (await r.json()).queries.find((x) => x.sql.includes('lineitem'));
  if (!q || !q.progress) return false;
  const stages = q.progress.stages;
  const numbers = stages.every((s) => ['stage', 'bytes_read', 'bytes_total', 'rows', 'tasks_done', 'tasks_total']
      .every((k) => Number.isInteger(s[k])));
  const moving = stages.some((s) => s.bytes_total > 0 && s.bytes_read > 0 && s.percent > 0) &&
                 stages.some((s) => s.tasks_total > 0);
  // Each stage's tasks per worker: in the API, and on the page beside the stage's bar.
  const perWorker = stages.every((s) => Array.isArray(s.workers) && s.workers.every(
      (w) => typeof w.worker === 'string' && Number.isInteger(w.running) && Number.isInteger(w.done))) &&
      stages.some((s) => s.workers.length > 0) &&
      document.querySelectorAll('#running tr.query .stage-worker').length > 0;
  return numbers && moving && perWorker && stages.length >= 2 ? stages : false;
}, { timeout: 120000, polling: 250 }).then((h) => h.jsonValue());
await page.screenshot({ path: path.join(artifacts, 'console-running.png') });
const shownStages = await page.$$eval('#running tr.query .stage-progress', (els) => els.map((e) => e.textContent));
console.log(`TPC-H q01 seen running, progress ${percent}; stages ${shownStages.join(' | ')}`);
console.log(`tasks per worker and stage: ${JSON.stringify(stagesMoving.map((s) => [s.stage, s.workers]))}`);
Check(stagesMoving.length >= 2, `stages: ${JSON.stringify(stagesMoving)}`);
const busy = await busyPromise;
Check(Array.isArray(busy), `running tasks on the workers while q01 ran: ${busy}`);
console.log(`running tasks per worker while it runs: ${busy.join(', ')}`);
const q1rows = await tpch;
Check(q1rows === 4, `q01 gave ${q1rows}`);

// ---- 4. cancel another query with its button ----------------------------------------------------------
const crossClient = await Client();
const cross = crossClient.query(
    'select sum(a.l_extendedprice * b.l_discount) from lineitem a cross join lineitem b')
    .then(() => 'finished', (e) => e.code);
await page.waitForFunction(() => [...document.querySelectorAll('#running tr.query')].some(
    (tr) => tr.textContent.includes('cross join')), { timeout: 60000 });
// pg_stat_activity through the PostgreSQL door lists both sessions, the cross join as active.
const activity = await tpchClient.query(
    "select pid, usename, application_name, client_addr, state, query, backend_start <= now() as started " +
    "from pg_stat_activity order by pid");
const crossRow = activity.rows.find((r) => r.query.includes('cross join'));
Check(activity.rows.length === 2 && crossRow && crossRow.state === 'active' && crossRow.usename === 'alice' &&
      crossRow.client_addr === '127.0.0.1' && crossRow.started === true,
      `pg_stat_activity: ${JSON.stringify(activity.rows)}`);
Check(activity.rows.some((r) => r.query.includes('pg_stat_activity') && r.state === 'active'),
      `pg_stat_activity does not show its own statement: ${JSON.stringify(activity.rows)}`);
console.log('pg_stat_activity: both sessions, the cross join active');
await page.evaluate(() => {
  const row = [...document.querySelectorAll('#running tr.query')].find((tr) => tr.textContent.includes('cross join'));
  row.querySelector('button.cancel').click();
});
const crossOutcome = await cross;
Check(crossOutcome === '57014', `the cancelled query ended with ${crossOutcome}`);
console.log('cancel button: the query ended with 57014');

// ---- 5. the finished query's stages and timeline against EXPLAIN ANALYZE -------------------------------
await tpchClient.query('reset batch_size');
const explained = await tpchClient.query(`explain analyze ${q1}`);
const text = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
const exchanges = [...text.matchAll(/Network\w+: stage=(\d+), tasks=(\d+)/g)];
const explainStages = new Set(exchanges.map((m) => m[1])).size;
const explainTasks = exchanges.reduce((sum, m) => sum + Number(m[2]), 0);
Check(explainStages >= 2, `EXPLAIN ANALYZE shows ${explainStages} stages:\n${text}`);
await page.click('#tabs button[data-view="history"]');
await page.waitForFunction(() => [...document.querySelectorAll('#history tr.finished-query')].some(
    (tr) => tr.textContent.includes('lineitem') && !tr.textContent.includes('explain') &&
            !tr.textContent.includes('cross join')), { timeout: 30000 });
await page.screenshot({ path: path.join(artifacts, 'console-history.png') });
await page.evaluate(() => {
  const row = [...document.querySelectorAll('#history tr.finished-query')].find(
      (tr) => tr.textContent.includes('lineitem') && !tr.textContent.includes('explain') &&
              !tr.textContent.includes('cross join'));
  row.click();
});
await page.waitForSelector('#timeline svg', { timeout: 30000 });
const shown = await page.evaluate(() => ({
  stages: document.querySelectorAll('#stage-graph g.stage:not([data-stage="0"])').length,
  tasks: document.querySelectorAll('#timeline rect.task').length,
  taskStages: new Set([...document.querySelectorAll('#timeline rect.task')].map((r) => r.dataset.stage)).size,
  workers: document.querySelectorAll('#timeline svg > text').length - 2,
  explain: document.querySelector('#explain').textContent,
}));
await page.screenshot({ path: path.join(artifacts, 'console-timeline.png'), fullPage: true });
Check(shown.stages === explainStages, `stage graph ${shown.stages} stages, EXPLAIN ANALYZE ${explainStages}`);
Check(shown.tasks === explainTasks, `timeline ${shown.tasks} tasks, EXPLAIN ANALYZE ${explainTasks}`);
Check(shown.taskStages === explainStages, `timeline colours ${shown.taskStages} stages`);
Check(shown.workers === 2, `timeline rows: ${shown.workers} workers`);
Check(/NetworkShuffle|NetworkCoalesce/.test(shown.explain), 'no EXPLAIN ANALYZE text beside');
console.log(`timeline: ${shown.stages} stages, ${shown.tasks} tasks on ${shown.workers} workers, as EXPLAIN ANALYZE`);

// The bars are where the tasks ran: each task's span is recorded (not all at 0), and a stage
// cannot end before the stages it reads have. With adaptive task counts the stages are dispatched
// one after another, producers first, so there a consumer stage's bars also start later.
// The newest finished q01 (not its EXPLAIN) newer than `after`, or null.
async function FinishedQ01(after) {
  return page.evaluate(async (after) => {
    const list = (await (await fetch('/api/history')).json()).queries;
    const q = list.find((x) => x.sql.includes('l_returnflag') && !x.sql.includes('explain') && x.id > after);
    return q ? (await fetch(`/api/history/${q.id}`)).json() : null;
  }, after);
}
function Spans(detail) {
  const by = new Map();
  for (const t of detail.tasks) {
    const s = by.get(t.stage) ?? { start: Infinity, end: 0 };
    s.start = Math.min(s.start, t.start_ms);
    s.end = Math.max(s.end, t.end_ms);
    by.set(t.stage, s);
  }
  return by;
}
function CheckTimeline(detail, label, startsOrdered) {
  Check(detail && detail.tasks.length > 0, `${label}: no finished query with tasks`);
  Check(detail.tasks.every((t) => t.start_ms >= 0 && t.end_ms >= t.start_ms), `${label} spans: ${JSON.stringify(detail.tasks)}`);
  Check(detail.tasks.some((t) => t.start_ms > 0), `${label}: every bar starts at 0: ${JSON.stringify(detail.tasks)}`);
  const spans = Spans(detail);
  const edges = detail.stages.filter((s) => s.consumer_stage !== 0 && spans.has(s.consumer_stage) && spans.has(s.stage));
  Check(edges.length > 0, `${label}: no stage reads another: ${JSON.stringify(detail.stages)}`);
  for (const e of edges) {
    const producer = spans.get(e.stage);
    const consumer = spans.get(e.consumer_stage);
    Check(consumer.end >= producer.end,
          `${label}: stage ${e.consumer_stage} ended (${consumer.end} ms) before stage ${e.stage} it reads (${producer.end} ms)`);
    if (startsOrdered) {
      Check(consumer.start > producer.start,
            `${label}: stage ${e.consumer_stage} started (${consumer.start} ms) no later than stage ${e.stage} (${producer.start} ms)`);
    }
  }
  return [...spans].map(([stage, s]) => `s${stage} ${s.start.toFixed(1)}-${s.end.toFixed(1)} ms`).join(', ');
}
const staticQ01 = await FinishedQ01(0);
const staticSpans = CheckTimeline(staticQ01, 'q01', false);

// One grep of its query id follows it across the coordinator and both workers: JSON lines with
// the id (and on the workers a task key too: lines logged for its tasks, operator threads
// included, carry both).
Check(/^[0-9a-f-]+$/.test(staticQ01.query_id), `query id ${staticQ01.query_id}`);
for (const name of ['server', 'worker0', 'worker1']) {
  const lines = fs.readFileSync(path.join(tmp, `${name}.log`), 'utf8').split('\n')
      .filter((l) => l.includes(staticQ01.query_id));
  Check(lines.length > 0, `${name}.log has no line of query ${staticQ01.query_id}`);
  const parsed = lines.map((l) => { try { return JSON.parse(l); } catch { return null; } })
      .filter((j) => j && j.query_id === staticQ01.query_id);
  Check(parsed.length > 0, `${name}.log: no JSON line whose query_id is ${staticQ01.query_id}: ${lines.slice(0, 3)}`);
  if (name !== 'server') {
    Check(parsed.some((j) => typeof j.task === 'string' && /^stage \d+ task \d+$/.test(j.task)),
          `${name}.log: no line of query ${staticQ01.query_id} names a task: ${JSON.stringify(parsed.slice(0, 3))}`);
  }
}
console.log(`query id ${staticQ01.query_id} found in the JSON logs of the server and both workers`);
const bars = await page.$$eval('#timeline rect.task', (rects) => rects.map((r) => Number(r.getAttribute('x'))));
Check(new Set(bars).size > 1, `every timeline bar starts at the same x: ${bars}`);
await tpchClient.query('set dist_adaptive_task_counts = true');
await tpchClient.query(q1);
await tpchClient.query('reset dist_adaptive_task_counts');
const adaptiveSpans = CheckTimeline(await FinishedQ01(staticQ01.id), 'q01 adaptive', true);
console.log(`timeline spans: static ${staticSpans}; adaptive ${adaptiveSpans}`);

// ---- 6. the counters moved --------------------------------------------------------------------------
const after = await Metrics(`${consoleUrl}/metrics`);
const finished = (f) => SampleValue(f, 'shoal_queries_total', { state: 'finished' }) ?? 0;
const cancelled = (f) => SampleValue(f, 'shoal_queries_total', { state: 'cancelled' }) ?? 0;
Check(finished(after) >= finished(before) + 2, `finished queries ${finished(before)} -> ${finished(after)}`);
Check(cancelled(after) === cancelled(before) + 1, `cancelled queries ${cancelled(before)} -> ${cancelled(after)}`);
Check((SampleValue(after, 'shoal_query_errors_total', { sqlstate: '57014' }) ?? 0) >= 1, 'no 57014 error counted');
Check(SampleValue(after, 'shoal_query_duration_seconds_count') >= 3, 'query time histogram did not move');
const workerAfter = await Metrics(workerMetrics[0]);
Check(SampleValue(workerAfter, 'shoal_worker_tasks_started_total') > tasksBefore, 'worker tasks did not move');
Check(SampleValue(workerAfter, 'shoal_process_resident_memory_bytes') > 0, 'no resident memory');
Check(SampleValue(workerAfter, 'shoal_worker_memory_limit_bytes', { worker: workers[0] }) > 0,
      'no worker memory limit');
console.log('metrics: queries, errors, time and worker tasks moved');

await tpchClient.end();
await crossClient.end();
await browser.close();
console.log(`PASS (screenshots in ${artifacts})`);
process.exit(0);
