import { PassThrough } from 'node:stream';
import type { PlatformEvent } from '../../core/plugin-api/index.ts';

export interface SseConnectionOptions {
  heartbeatMs: number;
  retryMs: number;
  maxBufferedBytes: number;
  /** Events with an id at or below this were already seen by the client (its Last-Event-ID). */
  afterId: number;
  /** Runs once when the connection ends, whatever ends it. */
  onClose(): void;
}

/**
 * One SSE response body. Until `replayDone` is called, live events are held back so
 * the replay goes out first; ids already sent are skipped, so the seam between replay
 * and live has neither a gap nor a duplicate.
 */
export class SseConnection {
  readonly stream = new PassThrough();
  readonly #o: SseConnectionOptions;
  #held: PlatformEvent[] | null = [];
  #lastId: number;
  #heartbeat: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: SseConnectionOptions) {
    this.#o = options;
    this.#lastId = options.afterId;
    this.stream.on('close', () => this.close());
    this.stream.on('error', () => this.close());
    this.#write(`retry: ${options.retryMs}\n\n`);
    this.#heartbeat = setInterval(() => {
      this.#write(`event: heartbeat\ndata: ${JSON.stringify({ timestamp: new Date().toISOString() })}\n\n`);
    }, options.heartbeatMs);
    this.#heartbeat.unref();
  }

  get closed(): boolean {
    return this.#closed;
  }

  deliver(event: PlatformEvent): void {
    if (this.#held) this.#held.push(event);
    else this.#send(event);
  }

  /** Sends the replayed events, then whatever arrived live meanwhile, and goes live. */
  replayDone(replayed: PlatformEvent[]): void {
    for (const e of replayed) this.#send(e);
    const held = this.#held ?? [];
    this.#held = null;
    for (const e of held) this.#send(e);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#held = null;
    this.stream.end();
    this.#o.onClose();
  }

  #send(event: PlatformEvent): void {
    const id = Number(event.id);
    if (id <= this.#lastId) return;
    this.#lastId = id;
    this.#write(`event: ${event.kind}\nid: ${event.id}\ndata: ${JSON.stringify(event.data)}\n\n`);
  }

  #write(text: string): void {
    if (this.#closed) return;
    this.stream.write(text);
    // A client that stopped reading is dropped rather than buffered without bound; it
    // reconnects with Last-Event-ID and gets the replay.
    if (this.stream.writableLength > this.#o.maxBufferedBytes) this.close();
  }
}
