// Waiting for a state instead of sleeping for a while, for the integration scripts (the C++
// tests have tests/support/wait.h): a script that sleeps "long enough" for a process to get
// somewhere is slow where the machine is fast and flaky where it is loaded.
//
//   if (!await WaitFor(() => TasksOf(dir).length > 0, 'a task process to start')) Fail(...);
import fs from 'node:fs';

/// Long enough for anything a script waits on to happen on a loaded machine.
export const kWaitTimeoutMs = 60000;

/// Polls `done` (a function, may be async) until it returns something truthy, which is returned,
/// or until `timeoutMs` passes: then logs "timed out after N ms waiting for <what>" and returns
/// false. Polls every 10 ms at first, backing off to 100 ms.
export async function WaitFor(done, what, timeoutMs = kWaitTimeoutMs) {
  const start = Date.now();
  let pause = 10;
  for (;;) {
    const value = await done();
    if (value) return value;
    if (Date.now() - start >= timeoutMs) {
      console.log(`timed out after ${Date.now() - start} ms waiting for ${what}`);
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 100);
  }
}

/// CPU time (user + system, in seconds) process `pid` has used, from /proc/PID/stat; -1 once it
/// is gone. Tells that a worker is executing a query (its CPU time grows), not merely idle.
export function CpuSeconds(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return -1;
  }
  // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime
  // are the 12th and 13th, in clock ticks (100 per second on Linux).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/// The address a `shoal worker --listen 127.0.0.1:0` started as `child`, logging to file `log`,
/// prints once it listens ("listening on ADDRESS"). Rejects with the log when the worker exits
/// first or does not listen within `timeoutMs`.
export async function ListeningAddress(child, log, timeoutMs = 120000) {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const found = await WaitFor(() => {
    const m = fs.readFileSync(log, 'utf8').match(/listening on (\S+)/);
    if (m) return m[1];
    return exited() ? 'exited' : false;
  }, `the worker logging to ${log} to listen`, timeoutMs);
  if (!found || found === 'exited') {
    throw new Error(`worker did not start: ${fs.readFileSync(log, 'utf8')}`);
  }
  return found;
}
