/** Lets this thread import TypeScript through the main thread's transpiler. Idempotent. */
export function useTypeScriptBridge(): void;
