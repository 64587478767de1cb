import type { AgentJobOutcome, AgentLogLine } from '../agent-protocol.ts';
import type { ExecutorResult } from '../plugin-api/index.ts';
import type { SecretBox } from '../secrets/secret-box.ts';

/**
 * Parameters, results and log lines of a job can carry secret values (a script may echo
 * one): all three are sealed at rest with the secret box, bound to the job's id and the
 * field, so a sealed value copied to another row or field does not open.
 */
export class AgentJobCodec {
  constructor(readonly box: SecretBox) {}

  sealParams(jobId: string, params: Record<string, unknown>): string {
    return this.box.seal(JSON.stringify(params), `agent-job:${jobId}:params`);
  }

  openParams(jobId: string, sealed: string): Record<string, unknown> {
    return JSON.parse(this.box.open(sealed, `agent-job:${jobId}:params`)) as Record<string, unknown>;
  }

  sealResult(jobId: string, outcome: AgentJobOutcome): string {
    return this.box.seal(JSON.stringify(outcome), `agent-job:${jobId}:result`);
  }

  openResult(jobId: string, sealed: string): ExecutorResult {
    return JSON.parse(this.box.open(sealed, `agent-job:${jobId}:result`)) as ExecutorResult;
  }

  sealLines(jobId: string, lines: AgentLogLine[]): string {
    return this.box.seal(JSON.stringify(lines), `agent-job:${jobId}:logs`);
  }

  openLines(jobId: string, sealed: string): AgentLogLine[] {
    return JSON.parse(this.box.open(sealed, `agent-job:${jobId}:logs`)) as AgentLogLine[];
  }
}
