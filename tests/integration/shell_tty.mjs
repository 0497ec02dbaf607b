// `shoal sql` on a real terminal (issue 19's shell), driven through tmux as a person types:
// the up arrow recalls the last statement, Tab completes a table name, `\d NAME` describes it,
// Ctrl-C at a continuation prompt drops the half-typed statement, Ctrl-C during a query cancels
// it and the shell goes on, a statement running longer than a second shows a progress line that
// is erased when it ends (and none when stderr is a pipe), Ctrl-D on an empty line ends the
// session, and the history file holds the statements for the next one. Needs tmux (scripts/install-deps.sh installs it).
//
//   node tests/integration/shell_tty.mjs path/to/shoal
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { WaitFor } from './wait.mjs';

const shoal = path.resolve(process.argv[2]);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-shell-tty-'));
const socket = `shoal-shell-tty-${process.pid}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = () => {
  try {
    return tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', 'shell');
  } catch {
    return '';  // the session has ended
  }
};
const alive = () => spawnSync('tmux', ['-L', socket, 'has-session', '-t', 'shell']).status === 0;
const keys = (...k) => tmux('send-keys', '-t', 'shell', ...k);
// tmux reads an argument's trailing ';' as the end of its command: send it escaped.
const type = (text) => {
  const body = text.endsWith(';') ? text.slice(0, -1) : text;
  if (body) tmux('send-keys', '-t', 'shell', '-l', body);
  if (body !== text) tmux('send-keys', '-t', 'shell', '\\;');
};
const count = (text, what) => text.split(what).length - 1;
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  if (!ok) {
    failures += 1;
    console.log(pane());
  }
};
const waitPane = async (predicate, what) => check(!!(await WaitFor(() => predicate(pane()), what)), what);

try {
  tmux('new-session', '-d', '-s', 'shell', '-x', '200', '-y', '50',
       `env HOME=${home} TERM=xterm ${shoal} sql --tpch 0.01`);
  await waitPane((p) => p.includes('shoal=>'), 'the prompt');

  type('select 40 + 2 as answer;');
  keys('Enter');
  await waitPane((p) => p.includes('     42'), 'a statement runs');

  keys('Up');
  await waitPane((p) => count(p, 'select 40 + 2 as answer;') === 2, 'the up arrow recalls it');
  keys('Enter');
  await waitPane((p) => count(p, '     42') === 2, 'the recalled statement runs');

  type('select count(*) as n from linei');
  keys('Tab');
  await waitPane((p) => p.includes('from lineitem '), 'Tab completes the table name');
  type(';');
  keys('Enter');
  await waitPane((p) => p.includes(' 60175'), 'the completed statement runs');

  type('\\d lineitem');
  keys('Enter');
  await waitPane((p) => p.includes('l_shipinstruct') && p.includes('numeric(15,2)'),
                 '\\d describes the table');

  type('select 1 as one');
  keys('Enter');
  await waitPane((p) => p.includes('shoal-> '), 'a continuation prompt');
  keys('C-c');
  await waitPane((p) => p.includes('^C'), 'Ctrl-C at the continuation prompt');
  type('select 5 as five;');
  keys('Enter');
  await waitPane((p) => p.includes(' five') && p.includes('    5'),
                 'the half-typed statement was dropped');
  check(!/ one \n-+\n/.test(pane()), 'the dropped statement never ran');

  type('select count(*) from lineitem a, lineitem b where a.l_comment < b.l_comment;');
  keys('Enter');
  // A statement running longer than a second shows its progress on the terminal's stderr.
  const progressLine = /(\d+% of [\d.]+ [kMGT]?B read|running), [\d.]+ s/;
  await waitPane((p) => progressLine.test(p), 'a progress line while the query runs');
  keys('C-c');
  await waitPane((p) => p.includes('canceling statement due to user request'),
                 'Ctrl-C cancels the running query');
  check(!progressLine.test(pane()), 'the progress line is erased when the statement ends');
  type('select 6 as six;');
  keys('Enter');
  await waitPane((p) => p.includes(' six'), 'the shell goes on after a cancel');

  // Not in a pipe: the same query with stderr to a pipe, stopped after 2.5 s, printed nothing.
  const piped = spawnSync(shoal, ['sql', '--tpch', '0.01', '-c',
                                  'select count(*) from lineitem a, lineitem b ' +
                                  'where a.l_comment < b.l_comment'],
                          { encoding: 'utf8', timeout: 2500, env: { ...process.env, HOME: home } });
  check(piped.signal === 'SIGTERM' && !progressLine.test(piped.stderr) && !piped.stderr.includes('\r'),
        `no progress line when stderr is a pipe (stderr: ${JSON.stringify(piped.stderr)})`);

  keys('C-d');
  check(!!(await WaitFor(() => !alive(), 'the shell to exit')), 'Ctrl-D on an empty line exits');

  // libedit writes its history file vis(3)-encoded: a space is \040.
  const history = fs.readFileSync(path.join(home, '.shoal_history'), 'utf8')
                      .replace(/\\040/g, ' ');
  check(history.includes('select 40 + 2 as answer;') && history.includes('select 5 as five;') &&
        !history.includes('select 1 as one'),
        'the history file holds the statements that ran');
} finally {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
  fs.rmSync(home, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('all checks passed');
