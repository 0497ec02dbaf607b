// `SELECT * FROM lineitem` at TPC-H SF1 under `memory_limit = '64MB'` streams all its rows
// through `shoal sql` on a terminal (issue 19's Done-when): typed in tmux as a person would, with
// the shell's output piped into a counter that holds nothing, and the shell's peak resident
// memory (VmHWM) far below the result's size (~1.4 GB in table format). Only lineitem is generated (`tpchgen --tables`), as
// Parquet. A ctest of its own (label sf1): the data and the output take a minute or more,
// more than the rest of the shell's test.
//
//   node tests/integration/shell_stream_sf1.mjs path/to/shoal
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { WaitFor } from './wait.mjs';

const shoal = path.resolve(process.argv[2]);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-stream-sf1-'));
const socket = `shoal-stream-sf1-${process.pid}`;
const kRows = 6001215;  // lineitem at SF1
const kMaxPeakBytes = 300 * 1024 * 1024;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = () => {
  try {
    return tmux('capture-pane', '-p', '-J', '-t', 'shell');
  } catch {
    return '';
  }
};
const alive = () => spawnSync('tmux', ['-L', socket, 'has-session', '-t', 'shell']).status === 0;
// Types a line and Enter (tmux reads an argument's trailing ';' as its own: sent escaped).
const type = (text) => {
  const body = text.endsWith(';') ? text.slice(0, -1) : text;
  if (body) tmux('send-keys', '-t', 'shell', '-l', body);
  if (body !== text) tmux('send-keys', '-t', 'shell', '\\;');
  tmux('send-keys', '-t', 'shell', 'Enter');
};
function Fail(message) {
  console.error(`FAIL: ${message}`);
  console.error(pane());
  if (alive()) spawnSync('tmux', ['-L', socket, 'kill-server']);
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}

// The counter: counts the shell's output lines and bytes as they pass and writes, every half
// second, how many it has seen and the last 400 characters, without keeping the data.
const counterScript = path.join(tmp, 'count.cjs');
const countFile = path.join(tmp, 'count.json');
const counterSource = [
  "const fs = require('fs');",
  `const out = ${JSON.stringify(countFile)};`,
  "let lines = 0, bytes = 0, tail = '';",
  'const flush = () => {',
  "  fs.writeFileSync(out + '.tmp', JSON.stringify({ lines, bytes, tail }));",
  "  fs.renameSync(out + '.tmp', out);",
  '};',
  'setInterval(flush, 500);',
  "process.stdin.on('data', (d) => {",
  '  bytes += d.length;',
  '  for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines += 1;',
  "  tail = (tail + d.subarray(Math.max(0, d.length - 400)).toString('latin1')).slice(-400);",
  '});',
  "process.stdin.on('end', () => { flush(); process.exit(0); });",
].join('\n');
fs.writeFileSync(counterScript, counterSource);
const footer = /\((\d+) rows\)/;

const started = Date.now();
const data = path.join(tmp, 'data');
const gen = spawnSync(shoal, ['tpchgen', '-s', '1', '--tables', 'lineitem', '--format', 'parquet',
                              '-o', data, '-q'], { encoding: 'utf8' });
if (gen.status !== 0) Fail(`tpchgen: ${gen.stderr}`);
const files = fs.readdirSync(data);
if (files.join() !== 'lineitem.parquet') Fail(`tpchgen --tables lineitem wrote ${files}`);
const parquetBytes = fs.statSync(path.join(data, 'lineitem.parquet')).size;
console.log(`SF1 lineitem as Parquet: ${(parquetBytes / 1e6).toFixed(0)} MB in ` +
            `${((Date.now() - started) / 1000).toFixed(1)} s`);

// stdin and stderr on the terminal, stdout into the counter.
tmux('new-session', '-d', '-s', 'shell', '-x', '200', '-y', '50',
     `env HOME=${tmp} TERM=xterm sh -c '${shoal} sql --no-progress | node ${counterScript}'`);
const panePid = tmux('list-panes', '-t', 'shell', '-F', '#{pane_pid}').trim();
const shellPid = await WaitFor(() => {
  const ps = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', panePid], { encoding: 'utf8' }).stdout;
  const m = ps.match(/(\d+) shoal/);
  return m ? m[1] : false;
}, 'the shell process');
if (!shellPid) Fail('no shell process');
const peak = () => {
  const m = fs.readFileSync(`/proc/${shellPid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return Number(m[1]) * 1024;
};
// Keys typed before the shell reads wait in the terminal.
if (!await WaitFor(() => fs.existsSync(countFile), 'the counter to start')) Fail('no counter');
type(`create external table lineitem stored as parquet location '${path.join(data, 'lineitem.parquet')}';`);
type("set memory_limit = '64MB';");
const queryStart = Date.now();
type('select * from lineitem;');
const done = await WaitFor(() => {
  if (!alive()) Fail('the shell ended');
  if (pane().includes('ERROR:')) Fail('the query failed');
  const c = JSON.parse(fs.readFileSync(countFile, 'utf8'));
  return footer.test(c.tail) ? c : false;
}, 'all rows of lineitem', 600000);
if (!done) Fail('the result did not end');
const seconds = (Date.now() - queryStart) / 1000;
const peakBytes = peak();
const rows = Number(done.tail.match(footer)[1]);
console.log(`streamed ${done.lines} lines, ${(done.bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s, ` +
            `footer (${rows} rows); the shell's peak RSS ${(peakBytes / 1e6).toFixed(0)} MB`);
if (rows !== kRows) Fail(`the shell says ${rows} rows, lineitem at SF1 has ${kRows}`);
if (done.lines < kRows + 2) Fail(`only ${done.lines} lines for ${kRows} rows`);
if (done.bytes < 2 * kMaxPeakBytes) Fail(`${done.bytes} bytes of output: too little to tell streaming`);
if (peakBytes >= kMaxPeakBytes) {
  Fail(`the shell's peak RSS ${peakBytes} bytes is not far below the result's ${done.bytes}`);
}
type('\\q');
if (!await WaitFor(() => !alive(), 'the shell to end')) Fail('\\q did not end the shell');
fs.rmSync(tmp, { recursive: true, force: true });
console.log('ok: SELECT * FROM lineitem at SF1 under memory_limit = 64MB streamed every row');
