// @ts-check
import { ApiError, errorOf, withQuery } from './api.js';
import { createSseParser } from './sse-parser.js';

/**
 * The event stream, read with fetch so the token travels in the Authorization header
 * (EventSource cannot send headers, and a token in a URL ends up in histories and proxy
 * logs). It reconnects by itself with `Last-Event-ID`, so the server replays what was
 * missed (docs/design/stream.md), and reports its state for the shell to show.
 *
 * @typedef {{ id: number | null, kind: string, data: any }} StreamEvent
 * @typedef {{ status: 'idle' | 'connecting' | 'live' | 'reconnecting' | 'stopped', retryAt: number | null, error: ApiError | null, lastEventId: string | null }} StreamState
 * @typedef {{
 *   getToken: () => string | null,
 *   query?: { events?: string, asset_id?: string },
 *   url?: string,
 *   fetch?: typeof fetch,
 *   onUnauthorized?: (error: ApiError) => void,
 *   minRetryMs?: number,
 *   maxRetryMs?: number,
 *   idleTimeoutMs?: number,
 * }} StreamOptions
 */

export class EventStream {
  /** @param {StreamOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {Set<(event: StreamEvent) => void>} */
    this.listeners = new Set();
    /** @type {Set<(state: StreamState) => void>} */
    this.stateListeners = new Set();
    /** @type {StreamState} */
    this.state = { status: 'idle', retryAt: null, error: null, lastEventId: null };
    /** The server's `retry:` hint; the wait grows from it after repeated failures. */
    this.retryMs = options.minRetryMs ?? 5000;
    this.failures = 0;
    /** @type {AbortController | null} */
    this.controller = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.running = false;
  }

  /** @param {(event: StreamEvent) => void} listener */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** @param {(state: StreamState) => void} listener */
  onState(listener) {
    this.stateListeners.add(listener);
    listener(this.state);
    return () => void this.stateListeners.delete(listener);
  }

  /** @param {Partial<StreamState>} patch */
  setState(patch) {
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.stateListeners]) listener(this.state);
  }

  start() {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  /** Closes the connection; `start()` later resumes after the last event seen. */
  stop() {
    this.running = false;
    clearTimeout(this.timer);
    this.controller?.abort();
    this.controller = null;
    this.setState({ status: 'stopped', retryAt: null });
  }

  /** Drops the connection now and reconnects with Last-Event-ID (also used by tests). */
  reconnectNow() {
    this.controller?.abort();
  }

  async connect() {
    if (!this.running) return;
    const token = this.options.getToken();
    if (!token) return this.stop();
    const controller = new AbortController();
    this.controller = controller;
    this.setState({ status: this.state.lastEventId === null && this.failures === 0 ? 'connecting' : 'reconnecting', retryAt: null });
    /** @type {Record<string, string>} */
    const headers = { accept: 'text/event-stream', authorization: `Bearer ${token}` };
    if (this.state.lastEventId !== null) headers['last-event-id'] = this.state.lastEventId;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let idle;
    // Heartbeats arrive every 30 s: a connection silent for longer is dead even if TCP has not noticed.
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => controller.abort(), this.options.idleTimeoutMs ?? 75_000);
    };
    try {
      const doFetch = this.options.fetch ?? fetch;
      const response = await doFetch(withQuery(this.options.url ?? '/api/events/stream', this.options.query), { headers, signal: controller.signal, cache: 'no-store', credentials: 'omit' });
      if (!response.ok || !response.body) {
        const error = await errorOf(response);
        if (error.status === 401 || error.status === 403) {
          this.running = false;
          this.setState({ status: 'stopped', error });
          if (error.status === 401) this.options.onUnauthorized?.(error);
          return;
        }
        throw error;
      }
      const resumed = this.failures > 0 || this.state.status === 'reconnecting';
      this.failures = 0;
      this.setState({ status: 'live', error: null });
      // Without any event id yet there was nothing to resume from: tell pages to reload what they show.
      if (resumed) for (const listener of [...this.listeners]) listener({ id: null, kind: 'stream.resumed', data: { replayed: this.state.lastEventId !== null } });
      touch();
      const parser = createSseParser(
        (message) => {
          if (message.id !== null) this.state.lastEventId = message.id;
          if (message.event === 'heartbeat') return;
          /** @type {any} */
          let data = null;
          try {
            data = JSON.parse(message.data);
          } catch {
            data = message.data;
          }
          const event = { id: message.id === null ? null : Number(message.id), kind: message.event, data };
          for (const listener of [...this.listeners]) listener(event);
        },
        (ms) => (this.retryMs = Math.max(ms, this.options.minRetryMs ?? 0)),
      );
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        touch();
        parser.push(value);
      }
      throw new ApiError(0, 'stream_ended', 'The server closed the event stream.');
    } catch (err) {
      if (!this.running) return;
      this.failures += 1;
      const error = err instanceof ApiError ? err : new ApiError(0, 'stream_lost', 'The connection to the event stream was lost.');
      // 429: the server says when; otherwise the retry hint, doubled per failure in a row, capped.
      const wait = error.retryAfter !== null ? error.retryAfter * 1000 : Math.min(this.retryMs * 2 ** Math.min(this.failures - 1, 5), this.options.maxRetryMs ?? 30_000);
      this.setState({ status: 'reconnecting', retryAt: Date.now() + wait, error });
      this.timer = setTimeout(() => void this.connect(), wait);
    } finally {
      clearTimeout(idle);
    }
  }
}
