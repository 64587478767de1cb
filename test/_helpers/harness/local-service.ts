import test from 'ava';
import { connect } from 'node:net';

/** Whether something accepts TCP connections at host:port (within 1 s). */
export function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether the tests of a local service (Redis, MariaDB) should run: true when it is
 * reachable. On a machine without it they are skipped (a fresh `npm ci && npm test`
 * still passes there) with a warning; in CI (`.ci/run` sets RAMPART_REQUIRE_SERVICES) a
 * missing service is a failed test instead. Use as `(up ? test : test.skip)(…)` and
 * guard the file's hooks with it.
 */
export async function serviceAvailable(name: string, url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  if (await reachable(hostname.replace(/^\[|\]$/g, ''), Number(port))) return true;
  if (process.env.RAMPART_REQUIRE_SERVICES) {
    test(`${name} is reachable at ${url}`, (t) => t.fail(`${name} is not reachable at ${url}; CI needs it`));
  } else {
    console.warn(`${name} is not reachable at ${url}: its tests are skipped here (CI runs them)`);
  }
  return false;
}
