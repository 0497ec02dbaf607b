// How the integration scripts that start `shoal worker` processes fail: the message, then the
// last lines of every worker's log (what a reader needs to see why), then exit status 1.
//
//   const workers = [];   // { address, log } entries, added as workers start
//   const { Fail, Expect } = FailureReport(workers);
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

// What a process that did not exit is doing: its state and, when gdb is installed, every thread's
// stack. A hang on shutdown is otherwise only "did not stop" in a CI log.
export function DescribeStuckProcess(pid) {
  let text = `--- process ${pid}`;
  try {
    text += `: ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ')}\n`;
    text += fs.readFileSync(`/proc/${pid}/status`, 'latin1').split('\n')
        .filter((l) => /^(State|Threads):/.test(l)).join('\n');
  } catch {
    return `${text}: already gone`;
  }
  const gdb = spawnSync('gdb', ['-batch', '-nx', '-p', String(pid), '-ex', 'thread apply all bt 25'],
                        { encoding: 'utf8', timeout: 60000 });
  if (gdb.error) return `${text}\n  (no stacks: ${gdb.error.message})`;
  const frames = (gdb.stdout ?? '').split('\n').filter((l) => /^(Thread|#)/.test(l));
  return `${text}\n${frames.join('\n')}`;
}

export function FailureReport(workers) {
  function Fail(message) {
    console.error(`FAIL: ${message}`);
    for (const w of workers) {
      console.error(`--- log of worker ${w.address} (last 20 lines):`);
      console.error(fs.readFileSync(w.log, 'utf8').split('\n').slice(-20).join('\n'));
    }
    process.exit(1);
  }
  // Fails with `what` and the exit status and output of `r` (a finished process) unless `cond`.
  function Expect(cond, what, r) {
    if (!cond) Fail(`${what}\n  exit ${r?.code}\n  stdout: ${r?.stdout}\n  stderr: ${r?.stderr}`);
  }
  return { Fail, Expect };
}
