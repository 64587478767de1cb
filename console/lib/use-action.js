// @ts-check
import { useState } from 'preact/hooks';

/**
 * One user-started API call (a button): `{run, busy, error, result}`. `run` never
 * throws: a failure lands in `error` for an ErrorBox, so a click cannot leave an
 * unhandled rejection, and the button can be disabled while `busy` (no double submits).
 * @template T
 * @param {(...args: any[]) => Promise<T>} operation
 */
export function useAction(operation) {
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown, result: T | null }} */ ({ busy: false, error: null, result: null }));
  /** @param {any[]} args */
  const run = async (...args) => {
    setState({ busy: true, error: null, result: null });
    try {
      const result = await operation(...args);
      setState({ busy: false, error: null, result });
      return result;
    } catch (error) {
      setState({ busy: false, error, result: null });
      return null;
    }
  };
  const clear = () => setState({ busy: false, error: null, result: null });
  return { ...state, run, clear };
}
