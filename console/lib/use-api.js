// @ts-check
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * Loads data for a page: `{data, error, loading, reload}`. `load` gets an AbortSignal;
 * a newer load (deps changed, or reload) cancels the older one, so a slow answer never
 * overwrites a newer one. `reload({quiet: true})` keeps showing the old data meanwhile
 * (live refreshes).
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} load
 * @param {unknown[]} deps
 */
export function useApi(load, deps) {
  const [state, setState] = useState(/** @type {{ data: T | null, error: unknown, loading: boolean }} */ ({ data: null, error: null, loading: true }));
  const controller = useRef(/** @type {AbortController | null} */ (null));
  const latest = useRef(load);
  latest.current = load;

  const run = useCallback((/** @type {{ quiet?: boolean }} */ options = {}) => {
    controller.current?.abort();
    const mine = new AbortController();
    controller.current = mine;
    if (!options.quiet) setState((s) => ({ ...s, loading: true, error: null }));
    latest.current(mine.signal).then(
      (data) => !mine.signal.aborted && setState({ data, error: null, loading: false }),
      (error) => {
        if (mine.signal.aborted) return;
        setState((s) => ({ data: options.quiet ? s.data : null, error, loading: false }));
      },
    );
  }, []);

  useEffect(() => {
    run();
    return () => controller.current?.abort();
  }, deps);

  return { ...state, reload: run };
}
