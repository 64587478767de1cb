import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import type { BackgroundService } from './background-registry.ts';
import { errorMessage } from './coerce-error.ts';
import { Heartbeat } from './heartbeat.ts';
import { claimToken } from './instance-id.ts';
import type { LeaseQueue } from './lease-queue.ts';
import { PollLoop } from './poll-loop.ts';
import type { Role } from './roles.ts';

/** Why a leased job was stopped from outside its `run`: the job's signal is aborted with it. */
export type StopReason = 'cancelled' | 'lost' | 'shutdown' | 'timeout';

/** One claimed row as its `run` sees it. */
export interface Lease {
  readonly id: string;
  /** The claim's token: every write to the row is guarded by it (core/work/lease-queue.ts). */
  readonly token: string;
  /** Aborted, with the StopReason as its reason, when the job must stop. */
  readonly signal: AbortSignal;
  /** Why the job was stopped; null while it may go on. */
  readonly reason: StopReason | null;
  /** Stops the job (its own deadline, an internal error); the first reason wins. */
  stop(reason: StopReason): void;
}

export interface LeaseWorkerOptions {
  /** The background service's name, and what its log lines say. */
  name: string;
  roles?: readonly Role[];
  db: Db;
  queue: LeaseQueue;
  logger: Logger;
  /** Tag in claim tokens (core/work/instance-id.ts). */
  tokenTag: string;
  pollIntervalMs: number;
  /** Read on every use, so a changed setting takes effect at the next round. */
  concurrency(): number;
  leaseMs(): number;
  /** Renewal period; default a third of the lease, at least 100 ms. */
  heartbeatMs?(): number;
  /** How often running jobs' cancel flags (the queue's `cancelWhen`) are read; default min(heartbeat, 500 ms). */
  cancelPollMs?: number;
  clock?: () => number;
  /** Claims at most this many rows per claim call; default all free slots. */
  claimBatch?: number;
  /** Claims differently from `queue.claim` (a per-key limit from settings). */
  claim?(db: Db, o: { token: string; now: number; leaseMs: number; limit: number; skipKeys: string[] }): Promise<string[]>;
  /** Fair share: the share key of a claimed row (its tenant) and how many of this worker's slots that key may hold. */
  share?: { keyOf(id: string): Promise<string | null>; slots(key: string): Promise<number> };
  /** The work. It ends the row itself (queue.finish with its outcome); what it leaves held is released. */
  run(lease: Lease): Promise<void>;
  /** After each renewal that held (log flushing). */
  onBeat?(lease: Lease): Promise<void>;
  /** A lost-lease sweep, run at most every `everyMs` before a claim. */
  sweep?: { everyMs(): number; run(now: number): Promise<void> };
  /** Why a job stopped for this reason when its renewal failed; default: 'cancelled' if the queue says so, else 'lost'. */
  onRenewFailed?(lease: Lease): Promise<StopReason>;
}

interface Running {
  lease: Lease;
  stop(reason: StopReason): void;
  key: string | null;
  done: Promise<void>;
}

/**
 * The one worker runtime of durable work: a poll loop claims rows of a LeaseQueue up to
 * `concurrency` (skipping share keys at their fair share), runs each with a unique claim
 * token, renews its lease on one Heartbeat (a renewal that fails aborts the job: it was
 * cancelled, or another worker took it over), reads cancel flags often enough that a
 * cancel is seen within a second, sweeps lost leases, and at shutdown aborts the jobs,
 * waits for each `run` to settle and releases what they left held. Each feature only
 * writes its `run`.
 */
export class LeaseWorker {
  readonly #o: LeaseWorkerOptions;
  readonly #loop: PollLoop;
  readonly #running = new Map<string, Running>();
  readonly #cancelWatch: Heartbeat | null;
  #lastSweep = 0;

  constructor(o: LeaseWorkerOptions) {
    this.#o = o;
    this.#loop = new PollLoop({ round: () => this.#round(), intervalMs: o.pollIntervalMs, onError: (err) => o.logger.error({ err: { message: err.message } }, `${o.name} worker error`), ...(o.clock ? { clock: o.clock } : {}) });
    const cancelEvery = o.cancelPollMs ?? Math.min(500, this.#heartbeatMs());
    this.#cancelWatch = o.queue.spec.cancelWhen ? new Heartbeat({ everyMs: cancelEvery, beat: () => this.#readCancels(), onError: (err) => o.logger.warn({ err: errorMessage(err) }, `${o.name}: cancel flags not read`) }) : null;
  }

  #now(): number {
    return (this.#o.clock ?? Date.now)();
  }

  #heartbeatMs(): number {
    return this.#o.heartbeatMs?.() ?? Math.max(100, Math.floor(this.#o.leaseMs() / 3));
  }

  get running(): boolean {
    return this.#loop.running;
  }

  /** Jobs in flight in this process. */
  get inflight(): number {
    return this.#running.size;
  }

  /** Whether this process runs the row now. */
  runs(id: string): boolean {
    return this.#running.has(id);
  }

  start(): void {
    this.#loop.start();
    this.#cancelWatch?.start();
  }

  wake(): void {
    this.#loop.wake();
  }

  /** Stops one job now (a cancel through this process's API) rather than at the next cancel read. */
  stopJob(id: string, reason: StopReason): void {
    this.#running.get(id)?.stop(reason);
  }

  /** Stops claiming, aborts running jobs ('shutdown'), waits for each to settle and releases what they left held. */
  async stop(): Promise<void> {
    const stopping = this.#loop.stop();
    for (const job of this.#running.values()) job.stop('shutdown');
    await stopping;
    await Promise.allSettled([...this.#running.values()].map((j) => j.done));
    await this.#cancelWatch?.stop();
  }

  /** Its entry in the background registry. */
  service(): BackgroundService {
    return { name: this.#o.name, roles: this.#o.roles ?? ['worker'], start: () => this.start(), stop: () => this.stop() };
  }

  /** One claim round now, in this process (tests, benchmarks): returns how many rows it started. */
  async claimOnce(): Promise<number> {
    return this.#claim(true);
  }

  async #round(): Promise<void> {
    const { sweep } = this.#o;
    const now = this.#now();
    if (sweep && now - this.#lastSweep >= sweep.everyMs()) {
      this.#lastSweep = now;
      await sweep.run(now);
    }
    await this.#claim(false);
  }

  async #claim(byHand: boolean): Promise<number> {
    const o = this.#o;
    let started = 0;
    for (;;) {
      const free = o.concurrency() - this.#running.size;
      if (free <= 0 || (!byHand && !this.#loop.running)) return started;
      const token = claimToken(o.tokenTag);
      // With fair shares each claim takes one row: a batch could put a key past its share by itself.
      const limit = o.share ? 1 : Math.min(free, o.claimBatch ?? free);
      const claim = { token, now: this.#now(), leaseMs: o.leaseMs(), limit, skipKeys: await this.#fullKeys() };
      const ids = o.claim ? await o.claim(o.db, claim) : await o.queue.claim(o.db, claim);
      for (const id of ids) await this.#start(id, token);
      started += ids.length;
      if (ids.length < limit) return started;
    }
  }

  /** Share keys at their fair share of this worker's slots: not claimed while they stay there. */
  async #fullKeys(): Promise<string[]> {
    const share = this.#o.share;
    if (!share) return [];
    const held = new Map<string, number>();
    for (const job of this.#running.values()) if (job.key !== null) held.set(job.key, (held.get(job.key) ?? 0) + 1);
    const full: string[] = [];
    for (const [key, n] of held) if (n >= (await share.slots(key))) full.push(key);
    return full;
  }

  async #start(id: string, token: string): Promise<void> {
    const o = this.#o;
    const controller = new AbortController();
    let reason: StopReason | null = null;
    const stop = (why: StopReason) => {
      if (reason) return;
      reason = why;
      controller.abort(why);
    };
    const lease: Lease = { id, token, signal: controller.signal, get reason() { return reason; }, stop };
    const job: Running = { lease, stop, key: null, done: Promise.resolve() };
    this.#running.set(id, job);
    try {
      job.key = (await o.share?.keyOf(id)) ?? null;
    } catch (err) {
      o.logger.warn({ id, err: errorMessage(err) }, `${o.name}: share key not read`);
    }
    const heartbeat = new Heartbeat({ everyMs: this.#heartbeatMs(), beat: () => this.#renew(lease), onError: (err) => o.logger.warn({ id, err: errorMessage(err) }, `${o.name}: lease renewal failed`) }).start();
    job.done = (async () => {
      try {
        await o.run(lease);
      } catch (err) {
        o.logger.error({ id, err: { message: errorMessage(err) } }, `${o.name}: job failed to settle`);
      } finally {
        await heartbeat.stop();
      }
      // Shutdown: hand back what the job left held, for the next worker at once. A row it
      // ended no longer carries the token, so this writes nothing then. (After an error the
      // lease is left to lapse: releasing it would retry a failing job in a tight loop.)
      if (lease.reason === 'shutdown') await o.queue.release(o.db, id, token, undefined, this.#now()).catch((err: unknown) => o.logger.warn({ id, err: errorMessage(err) }, `${o.name}: release failed`));
    })().finally(() => {
      this.#running.delete(id);
      this.#loop.wake();
    });
  }

  async #renew(lease: Lease): Promise<void> {
    const o = this.#o;
    if (lease.reason === 'lost' || lease.reason === 'cancelled') return;
    if (await o.queue.renew(o.db, lease.id, lease.token, this.#now() + o.leaseMs())) {
      await o.onBeat?.(lease);
      return;
    }
    const why = o.onRenewFailed ? await o.onRenewFailed(lease) : (await o.queue.cancelled(o.db, [lease.id])).length ? 'cancelled' : 'lost';
    this.#running.get(lease.id)?.stop(why);
  }

  /** One read of the running jobs' cancel flags; flagged jobs stop as 'cancelled'. */
  async #readCancels(): Promise<void> {
    const ids = [...this.#running.keys()];
    for (const id of await this.#o.queue.cancelled(this.#o.db, ids)) this.#running.get(id)?.stop('cancelled');
  }
}
