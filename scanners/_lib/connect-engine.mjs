// The TCP connect-scan engine. Plain JavaScript on purpose: shard threads
// (connect-shard-worker.mjs) load it without a TypeScript loader, which would cost
// ~0.4 s per thread on a scan that itself lasts about a second. Types: connect-engine.d.mts.
import { Socket } from 'node:net';
import { getSystemErrorName } from 'node:util';
import { addressOnly } from './address-only.mjs';
import { HostTiming } from './host-timing.mjs';

/** Errors that mean "this machine ran out of sockets", never "closed". */
const LOCAL_LIMITS = new Set(['EMFILE', 'ENFILE', 'EADDRNOTAVAIL', 'ENOBUFS', 'ENOMEM']);
/** An answer that says "something in the way" (ICMP unreachable): filtered, and final. */
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ETIMEDOUT']);

export class SocketExhaustedError extends Error {
  constructor(code) {
    super(`${code}: the scanner ran out of sockets (ulimit -n); lower the port scanner's concurrency`);
    this.name = 'SocketExhaustedError';
    this.code = code;
  }
}

/**
 * libuv's TCP handle without net.Socket's stream machinery: about twice as many connects
 * per second, which is what a full-range scan is made of. It is Node's internal binding
 * (what net.Socket itself uses), so it is feature-tested and the public net.Socket path
 * is the fallback.
 */
function rawBinding() {
  if (process.env.RAMPART_SCAN_SOCKETS === 'net') return null;
  try {
    const b = process.binding('tcp_wrap');
    if (typeof b?.TCP !== 'function' || typeof b?.TCPConnectWrap !== 'function' || typeof b.TCP.prototype.connect !== 'function') return null;
    return b;
  } catch {
    return null;
  }
}
const RAW = rawBinding();

/** Which connector this process uses: `raw` (libuv handle) or `net` (net.Socket). */
export const connector = RAW ? 'raw' : 'net';

const errName = (status) => {
  try {
    return getSystemErrorName(status);
  } catch {
    return `E${-status}`;
  }
};

/**
 * Starts one connect; `done(code, self)` is called once with null (connected) or an
 * error code, and `self` when the connection is to itself (loopback simultaneous open).
 * Returns a function that abandons the attempt (no callback afterwards).
 */
function rawConnect(host, port, v6, done) {
  const handle = new RAW.TCP(RAW.constants.SOCKET);
  const req = new RAW.TCPConnectWrap();
  let live = true;
  req.oncomplete = (status) => {
    if (!live) return;
    live = false;
    let self = false;
    if (status === 0) {
      const local = {};
      const remote = {};
      handle.getsockname(local);
      handle.getpeername(remote);
      self = local.port === remote.port && local.address === remote.address;
    }
    handle.close();
    done(status === 0 ? null : errName(status), self);
  };
  const err = v6 ? handle.connect6(req, host, port) : handle.connect(req, host, port);
  if (err) {
    live = false;
    handle.close();
    queueMicrotask(() => done(errName(err), false));
  }
  return () => {
    if (!live) return;
    live = false;
    handle.close();
  };
}

function socketConnect(host, port, _v6, done) {
  const socket = new Socket();
  let live = true;
  const finish = (code, self) => {
    if (!live) return;
    live = false;
    socket.destroy();
    done(code, self);
  };
  socket.once('connect', () => finish(null, socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress));
  socket.once('error', (e) => finish(e.code ?? 'EUNKNOWN', false));
  try {
    socket.connect({ host, port });
  } catch (e) {
    queueMicrotask(() => finish(e.code ?? 'EUNKNOWN', false));
  }
  return () => {
    if (!live) return;
    live = false;
    socket.destroy();
  };
}

/**
 * The ports in random order, as nmap scans them: a block of dropped ports does not hold
 * the first connects to a host (they teach its timing), and a host sees no sweep.
 */
function shuffled(ports) {
  const out = [...ports];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Connect scan of several hosts at once. Ports are interleaved across hosts (and
 * shuffled per host) so every host is learned from early; each host has its own timing
 * (host-timing.mjs), the scan's until it has answered: open and closed answers give
 * RTT samples, and a connect without an answer is given up after that host's current
 * timeout, re-read on every sweep so in-flight connects shorten as soon as the first
 * answers arrive. A port without an answer is tried again
 * `retries` times (a lost SYN is not a filter); ICMP unreachable is final. Hosts are
 * addresses only (the raw handle could not resolve a name, and must not).
 */
export function connectScan(targets, opts) {
  for (const t of targets) addressOnly(t.host);
  return new Promise((resolve, reject) => {
    const concurrency = Math.max(1, opts.concurrency | 0);
    const hostLimit = Math.max(1, (opts.hostConcurrency ?? concurrency) | 0);
    const retries = Math.max(0, opts.retries ?? 1);
    const sweepMs = Math.max(2, Math.min(10, Math.floor((opts.minTimeoutMs ?? 100) / 10)));
    const group = new HostTiming(opts);
    const hosts = targets.map((t) => ({
      host: t.host,
      v6: t.host.includes(':'),
      ports: opts.shuffle === false ? t.ports : shuffled(t.ports),
      next: 0,
      again: [],
      inFlight: 0,
      timing: new HostTiming({ ...opts, group }),
      open: [],
      closed: 0,
      filtered: [],
    }));
    const total = hosts.reduce((s, h) => s + h.ports.length, 0);
    // About every percent, and at least every 256 ports.
    const progressStep = Math.max(1, Math.min(256, Math.floor(total / 100)));
    const startConnect = opts.sockets === 'net' || !RAW ? socketConnect : rawConnect;
    const flying = new Set();
    /** Work to start again at once (it could not get a socket). */
    const redo = [];
    let budget = concurrency;
    let done = 0;
    let cursor = 0;
    let finished = false;
    let lastProgress = 0;

    const settle = (err) => {
      if (finished) return;
      finished = true;
      clearInterval(sweeper);
      opts.signal?.removeEventListener('abort', onAbort);
      for (const f of flying) f.cancel();
      flying.clear();
      if (err) return reject(err);
      opts.onProgress?.(done, total);
      resolve(hosts.map((h) => ({
        host: h.host,
        open: h.open.sort((a, b) => a - b),
        closed: h.closed,
        filtered: h.filtered.sort((a, b) => a - b),
        timeoutMs: Math.round(h.timing.timeout()),
        srttMs: h.timing.srtt === null ? null : Math.round(h.timing.srtt * 100) / 100,
      })));
    };
    const onAbort = () => settle(opts.signal.reason instanceof Error ? opts.signal.reason : new Error('aborted'));

    const record = (h, port, state) => {
      if (state === 'open') h.open.push(port);
      else if (state === 'closed') h.closed += 1;
      else h.filtered.push(port);
      done += 1;
      if (opts.onProgress && (done === total || done - lastProgress >= progressStep)) {
        lastProgress = done;
        opts.onProgress(done, total);
      }
    };

    const nextWork = () => {
      if (redo.length) return redo.shift();
      for (let k = 0; k < hosts.length; k++) {
        const h = hosts[(cursor + k) % hosts.length];
        if (h.inFlight < hostLimit && h.next < h.ports.length) {
          cursor = (cursor + k + 1) % hosts.length;
          return { h, port: h.ports[h.next++], attempt: 0 };
        }
      }
      // Retries only once a host's first attempts are out: by then its timing is learned.
      for (let k = 0; k < hosts.length; k++) {
        const h = hosts[(cursor + k) % hosts.length];
        if (h.inFlight < hostLimit && h.next >= h.ports.length && h.again.length) {
          cursor = (cursor + k + 1) % hosts.length;
          return h.again.shift();
        }
      }
      return null;
    };

    const launch = () => {
      while (!finished && flying.size < budget) {
        const work = nextWork();
        if (!work) break;
        start(work);
      }
      if (!finished && flying.size === 0 && !redo.length && !hosts.some((h) => h.next < h.ports.length || h.again.length)) settle(null);
    };

    const start = (work) => {
      const { h, port } = work;
      const f = { h, port, attempt: work.attempt, started: performance.now(), overdue: false, cancel: null };
      h.inFlight += 1;
      flying.add(f);
      f.cancel = startConnect(h.host, port, h.v6, (code, self) => {
        if (finished || !flying.delete(f)) return;
        h.inFlight -= 1;
        if (code === null || code === 'ECONNREFUSED' || code === 'ECONNRESET') {
          const rtt = performance.now() - f.started;
          h.timing.sample(rtt);
          group.sample(rtt);
          record(h, port, code === null && !self ? 'open' : 'closed');
        } else if (UNREACHABLE.has(code)) {
          record(h, port, 'filtered');
        } else if (LOCAL_LIMITS.has(code)) {
          // Out of sockets: try this port again with fewer connects in flight; only
          // when even one connect at a time cannot get a socket does the scan fail.
          if (flying.size === 0) return settle(new SocketExhaustedError(code));
          budget = Math.max(1, flying.size >> 1);
          redo.push(work);
        } else {
          return settle(Object.assign(new Error(`connect to ${h.host}:${port} failed: ${code}`), { code }));
        }
        launch();
      });
    };

    // One timer for every connect in flight. A connect is given up only when it was
    // already overdue at the previous sweep: a poll phase has run in between, so an
    // answer that arrived while the event loop was busy is read before it is declared lost.
    const sweeper = setInterval(() => {
      const now = performance.now();
      let expired = false;
      for (const f of flying) {
        if (now - f.started < f.h.timing.timeout()) continue;
        if (!f.overdue) {
          f.overdue = true;
          continue;
        }
        f.cancel();
        flying.delete(f);
        f.h.inFlight -= 1;
        if (f.attempt < retries) f.h.again.push({ h: f.h, port: f.port, attempt: f.attempt + 1 });
        else record(f.h, f.port, 'filtered');
        expired = true;
      }
      if (expired) launch();
    }, sweepMs);

    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    launch();
  });
}
