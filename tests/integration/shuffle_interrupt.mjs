// A materialized-shuffle driver (`shoal sql --shuffle-dir`) that is interrupted leaves no task
// process running: Ctrl-C (SIGINT) makes the driver kill its tasks' process groups, and a driver
// killed outright (SIGKILL) takes its tasks with it (they die with their parent).
//
//   node shuffle_interrupt.mjs SHOAL_BINARY
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { WaitFor } from './wait.mjs';

const shoal = process.argv[2];
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-shuffle-interrupt-'));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));

// Pids of `shoal task` processes whose command line mentions `needle` (not the driver's).
function ProcessesMentioning(needle) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1');
      if (cmdline.includes('\0task\0') && cmdline.includes(needle)) pids.push(entry);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function Check(signal) {
  const dir = path.join(root, signal);
  const driver = spawn(shoal, ['sql', '--tpch', '0.01', '--shuffle-dir', dir, '-c',
                               'SELECT l_returnflag, count(*) FROM lineitem GROUP BY 1'], {
    env: { ...process.env, SHOAL_SHUFFLE_TEST_TASK_DELAY_MS: '120000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  driver.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => driver.on('exit', (code, sig) => resolve({ code, sig })));
  const tasks = await WaitFor(() => {
    const pids = ProcessesMentioning(dir);
    return pids.length > 0 && pids;
  }, 'a task process to start');
  if (!tasks) {
    driver.kill('SIGKILL');
    return `${signal}: no task process started (${stderr.trim()})`;
  }
  driver.kill(signal);
  const { code, sig } = await exited;
  // The tasks die with their process group (SIGINT) or their parent (SIGKILL), promptly.
  await WaitFor(() => ProcessesMentioning(dir).length === 0, 'the task processes to exit', 10000);
  const left = ProcessesMentioning(dir);
  if (left.length > 0) {
    for (const pid of left) process.kill(Number(pid), 'SIGKILL');
    return `${signal}: task processes ${left.join(', ')} still ran after the driver exited`;
  }
  if (signal === 'SIGINT' && (code !== 1 || !/cancel/i.test(stderr))) {
    return `SIGINT: expected a cancelled query and exit status 1, got ${code ?? sig}: ${stderr}`;
  }
  console.log(`${signal}: ${tasks.length} task processes, none left after the driver stopped`);
  return null;
}

let failed = 0;
for (const signal of ['SIGINT', 'SIGKILL']) {
  const problem = await Check(signal);
  if (problem) {
    ++failed;
    console.log(`FAIL: ${problem}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
