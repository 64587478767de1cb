// The order ava starts the test files in (ava.config.mjs's sortTestFiles): the longest first,
// so that no long file starts last and leaves the other slot idle at the end of a pass.
// With RAMPART_TEST_ORDER=<file> (file-times.mjs's records, e.g. the SQLite pass's for the
// MariaDB pass of .ci/run) a file's recorded wall time ranks it; without a record, its folder
// does: the browser, production and reliability suites hold the slowest files (docs/testing.md).
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

const SLOW_FOLDERS = [
  ['test/console/', 60],
  ['test/production/', 40],
  ['test/reliability/', 30],
  ['test/plugins/scans/', 20],
  ['test/core/scans/', 20],
  ['test/scanners/', 10],
];

function recorded(file) {
  const times = new Map();
  if (!file || !existsSync(file)) return times;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [name, start, end] = line.split('\t');
    if (name && end) times.set(name, Math.max(times.get(name) ?? 0, (Number(end) - Number(start)) / 1000));
  }
  return times;
}

/** A comparator of test file paths (absolute or relative to the checkout): the slowest first, then by name. */
export function slowestFirst(times = recorded(process.env.RAMPART_TEST_ORDER)) {
  const weight = (path) => {
    const file = isAbsolute(path) ? relative(process.cwd(), path) : path;
    return times.get(file) ?? SLOW_FOLDERS.find(([folder]) => file.startsWith(folder))?.[1] ?? 0;
  };
  return (a, b) => weight(b) - weight(a) || a.localeCompare(b);
}
