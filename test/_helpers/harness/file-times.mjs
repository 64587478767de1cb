// Loaded into every ava worker process (ava.config.mjs). With RAMPART_TEST_TIMES=<file>, each
// test file's process appends "<test file>\t<start ms>\t<end ms>\t<CPU ms>" to that file when it
// exits, so .ci/run can report the slowest files. The CPU time is the test process's own (not
// its children's nor a database server's): wall time well above it is time spent waiting.
// ava names the file in its first IPC message.
import { appendFileSync } from 'node:fs';

const out = process.env.RAMPART_TEST_TIMES;
if (out) {
  const started = Date.now();
  let file = null;
  const find = (value, depth = 0) => {
    if (file || depth > 6 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      if (/\.test\.ts$/.test(value)) file = value;
    } else if (typeof value === 'object') {
      for (const v of Object.values(value)) find(v, depth + 1);
    }
  };
  process.on('message', (message) => find(message));
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    if (file) appendFileSync(out, `${file.replace(/^.*?\/test\//, 'test/')}\t${started}\t${Date.now()}\t${Math.round((cpu.user + cpu.system) / 1000)}\n`);
  });
}
