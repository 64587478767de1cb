// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { currentToken } from '../lib/api.js';
import { EventStream } from '../lib/stream.js';

/**
 * The console's one event-stream connection (a tenant has few stream slots: 5 on the
 * Standard tier), shared by every page. The shell starts it after sign-in when the token
 * has `events:read` and stops it at sign-out. Pages listen with `useEvents`.
 */

/** @type {EventStream | null} */
let stream = null;
/** @type {Set<(stream: EventStream | null) => void>} */
const watchers = new Set();

/**
 * @param {{ onUnauthorized: (error: import('../lib/api.js').ApiError) => void }} options
 */
export function startLiveStream(options) {
  stopLiveStream();
  stream = new EventStream({ getToken: currentToken, onUnauthorized: options.onUnauthorized });
  stream.start();
  for (const watcher of watchers) watcher(stream);
}

export function stopLiveStream() {
  stream?.stop();
  stream = null;
  for (const watcher of watchers) watcher(null);
}

/** The shared stream (null when signed out or without events:read); for tests and the shell. */
export function liveStream() {
  return stream;
}

/** @returns {EventStream | null} */
function useLiveStream() {
  const [current, setCurrent] = useState(stream);
  useEffect(() => {
    setCurrent(stream);
    watchers.add(setCurrent);
    return () => void watchers.delete(setCurrent);
  }, []);
  return current;
}

/**
 * Calls `handler` for every live event whose kind is in `kinds` (and for `stream.resumed`,
 * after a reconnect, so a page can reload). The latest handler is used without resubscribing.
 * @param {string[]} kinds
 * @param {(event: import('../lib/stream.js').StreamEvent) => void} handler
 */
export function useEvents(kinds, handler) {
  const current = useLiveStream();
  const latest = useRef(handler);
  latest.current = handler;
  const key = kinds.join(',');
  useEffect(() => {
    if (!current) return undefined;
    const wanted = new Set([...key.split(','), 'stream.resumed']);
    return current.subscribe((event) => {
      if (wanted.has(event.kind)) latest.current(event);
    });
  }, [current, key]);
}

/** The stream's state for display; null when there is no stream. */
export function useStreamState() {
  const current = useLiveStream();
  const [state, setState] = useState(current?.state ?? null);
  useEffect(() => {
    if (!current) return setState(null);
    return current.onState((s) => setState({ ...s }));
  }, [current]);
  return state;
}

/**
 * Reloads quietly (old data stays on screen) when events of `kinds` arrive, at most
 * once per `ms`: a burst of 500 finding.new events costs one reload, not 500.
 * @param {string[]} kinds
 * @param {(options: { quiet: boolean }) => void} reload
 * @param {number} [ms]
 */
export function useLiveReload(kinds, reload, ms = 750) {
  const timer = useRef(/** @type {ReturnType<typeof setTimeout> | null} */ (null));
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  useEvents(kinds, () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      reload({ quiet: true });
    }, ms);
  });
}
