// @ts-check
import { useEffect, useState } from 'preact/hooks';

/**
 * @template T
 * @typedef {{ get(): T, set(patch: Partial<T>): void, subscribe(listener: (value: T) => void): () => void }} Store
 */

/**
 * A tiny observable object for state shared across pages (the session, the stream's
 * state). Pages keep their own state in hooks; only what the shell shares lives here.
 * @template {object} T
 * @param {T} initial
 * @returns {Store<T>}
 */
export function createStore(initial) {
  let value = initial;
  /** @type {Set<(value: T) => void>} */
  const listeners = new Set();
  return {
    get: () => value,
    set(patch) {
      value = /** @type {T} */ ({ .../** @type {object} */ (value), ...patch });
      for (const listener of [...listeners]) listener(value);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/**
 * The store's current value; the component re-renders when it changes.
 * @template T
 * @param {Store<T>} store
 * @returns {T}
 */
export function useStore(store) {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
