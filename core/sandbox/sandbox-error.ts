/** Why a sandbox run failed; the same codes the contract documents for `ctx.sandbox.run`. */
export type SandboxErrorCode = 'timeout' | 'memory_limit' | 'script_error' | 'invalid_value' | 'cancelled';

export class SandboxError extends Error {
  readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
  }
}

/** JSON text of a value, refusing what JSON would silently drop or cannot hold (functions, symbols, cycles, BigInt). */
export function strictJson(value: unknown, what: string): string {
  try {
    const text = JSON.stringify(value === undefined ? null : value, (_key, v: unknown) => {
      if (typeof v === 'function' || typeof v === 'symbol') throw new TypeError(`a ${typeof v} cannot cross the sandbox boundary`);
      return v;
    });
    return text;
  } catch (err) {
    throw new SandboxError('invalid_value', `${what} is not JSON: ${(err as Error).message}`);
  }
}
