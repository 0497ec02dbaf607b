// How the integration scripts that start `shoal worker` processes fail: the message, then the
// last lines of every worker's log (what a reader needs to see why), then exit status 1.
//
//   const workers = [];   // { address, log } entries, added as workers start
//   const { Fail, Expect } = FailureReport(workers);
import fs from 'node:fs';

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
