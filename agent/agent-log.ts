/** One JSON object per line on stdout. Callers pass ids, codes and counts: never parameters, output or the token. */
export type AgentLogFn = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export function createAgentLog(write: (line: string) => void = (line) => process.stdout.write(line)): AgentLogFn {
  return (level, msg, fields = {}) => {
    write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
}
