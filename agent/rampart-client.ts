import { Agent, request } from 'undici';
import type { AgentJob, AgentJobOutcome, AgentLogLine } from '../core/agent-protocol.ts';
import type { ExecutorResult } from '../core/plugin-api/index.ts';

/** Rampart could not be reached, or answered 5xx/429: try again later. */
export class UnreachableError extends Error {}
/** The token was refused (unknown or revoked): nothing will work until an admin issues a new one. */
export class RejectedTokenError extends Error {}
/** The server refused this step for this job (409: not held, cancelled, already ended); `code` says why. */
export class JobRefusedError extends Error {
  constructor(readonly status: number, readonly code: string) {
    super(`refused: ${status} ${code}`);
  }
}

/**
 * The agent's HTTP client for the agent protocol. The token travels only in the
 * Authorization header; nothing here logs request or response bodies.
 */
export class RampartClient {
  readonly #dispatcher: Agent;

  constructor(private readonly baseUrl: string, private readonly token: string, ca: string | null) {
    // Long polls last up to 30 s: headers may take that long.
    this.#dispatcher = new Agent({ connect: ca ? { ca } : {}, headersTimeout: 60_000, bodyTimeout: 60_000, connectTimeout: 10_000 });
  }

  async #post(path: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; data: any }> {
    let res;
    try {
      res = await request(`${this.baseUrl}${path}`, {
        method: 'POST',
        dispatcher: this.#dispatcher,
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new UnreachableError((err as NodeJS.ErrnoException).code ?? (err as Error).name);
    }
    const text = await res.body.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (res.statusCode === 401) throw new RejectedTokenError('the agent token was refused (unknown or revoked)');
    if (res.statusCode === 429 || res.statusCode >= 500) throw new UnreachableError(`HTTP ${res.statusCode}`);
    if (res.statusCode >= 400) throw new JobRefusedError(res.statusCode, String(json?.error?.code ?? 'refused'));
    return { status: res.statusCode, data: json?.data };
  }

  /** Long poll: a job, or null when none came within `waitSeconds`. */
  async claim(waitSeconds: number, signal?: AbortSignal): Promise<AgentJob | null> {
    const res = await this.#post('/api/agent/jobs/claim', { wait_seconds: waitSeconds }, signal);
    return res.status === 204 ? null : (res.data as AgentJob);
  }

  async start(jobId: string): Promise<void> {
    await this.#post(`/api/agent/jobs/${jobId}/start`, {});
  }

  /** Heartbeat with log lines; true when the job must stop. */
  async logs(jobId: string, lines: AgentLogLine[]): Promise<boolean> {
    return Boolean((await this.#post(`/api/agent/jobs/${jobId}/logs`, { lines })).data?.cancel);
  }

  async result(jobId: string, result: ExecutorResult): Promise<void> {
    const { status, output, error } = result;
    const outcome: AgentJobOutcome = { status, output, ...(error ? { error } : {}) };
    await this.#post(`/api/agent/jobs/${jobId}/result`, outcome);
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}
