import type { CheckContext, FindingReport, ScannerCheck, ScanTarget } from '../../../core/plugin-api/index.ts';
import type { HttpResponse } from '../../_lib/http.ts';
import { startUrl } from '../../_lib/endpoint.ts';
import { crawl } from '../crawler.ts';
import { RequestBudget } from '../request-budget.ts';
import { describeRequest, injectionPoints, pointLocation, send, type InjectionPoint } from './injection-points.ts';

/** What one active test found at one point: the request that proved it and the part of the response that shows it. */
export interface Proof {
  /** The payload sent in the parameter. */
  payload: string;
  /** How it was proved (`error message`, `boolean condition`, `time delay`, `marker`…). */
  technique: string;
  /** The excerpt of the response (or the timings) that proves it. */
  indicator: string;
  /** Further requests that confirmed it (boolean and time-based proofs). */
  confirmations?: string[];
}

/** The tools an active test gets for one point: sending within the budget, and the point's baseline answer. */
export interface Probe {
  ctx: CheckContext;
  point: InjectionPoint;
  /** The answer to the site's own value. */
  baseline: HttpResponse;
  /** Sends a value (null when the budget is used up: the test stops). */
  send(value: string, timeoutMs?: number): Promise<HttpResponse | null>;
}

export interface ActiveCheckSpec {
  id: string;
  title: string;
  maxSeverity: ScannerCheck['maxSeverity'];
  description: string;
  /** Tests one point; returns a proof or null. */
  test(probe: Probe): Promise<Proof | null>;
  /** Turns a proof into the finding (title, vector, texts); evidence and location are added. */
  finding(point: InjectionPoint, proof: Proof): Omit<FindingReport, 'evidence' | 'location'>;
}

/**
 * An active check: runs only with `options.active: true` (the engine allows that only for
 * verified assets or the loopback trial), crawls the origin, and tests every injection
 * point (query parameters of crawled links, fields of crawled forms, POST forms included:
 * they are submitted) within the request budget. One finding per vulnerable parameter,
 * with the request that proved it and the part of the response that shows it.
 */
export function activeCheck(spec: ActiveCheckSpec): ScannerCheck {
  return {
    id: spec.id,
    title: spec.title,
    category: 'injection',
    maxSeverity: spec.maxSeverity,
    // Planned by the engine only for scans with options.active (checked again below).
    active: true,
    description: `${spec.description} Only with options.active.`,
    async run(ctx: CheckContext, target: ScanTarget) {
      if (ctx.options.active !== true) {
        ctx.log('WARN', 'active checks are off (options.active is not set): nothing was sent');
        return;
      }
      const start = startUrl(target);
      if (!start) return;
      const points = injectionPoints(await crawl(ctx, start));
      const budget = RequestBudget.of(ctx);
      const failed: string[] = [];
      let tested = 0;
      for (const point of points) {
        if (ctx.signal.aborted || budget.exhausted) break;
        const sendValue = async (value: string, timeoutMs?: number) => (budget.take() ? send(ctx, point, value, timeoutMs) : null);
        try {
          const baseline = await sendValue(point.original);
          if (!baseline) break;
          tested += 1;
          const proof = await spec.test({ ctx, point, baseline, send: sendValue });
          if (!proof) continue;
          const f = spec.finding(point, proof);
          ctx.report({
            ...f,
            evidence: {
              url: point.url,
              method: point.method,
              parameter: point.parameter,
              payload: proof.payload,
              request: describeRequest(point, proof.payload),
              technique: proof.technique,
              ...(proof.confirmations ? { confirmations: proof.confirmations } : {}),
              response_indicator: proof.indicator,
            },
            location: pointLocation(point),
          });
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          failed.push(`${point.method} ${point.url} ${point.parameter}: ${(err as Error).message}`);
        }
      }
      budget.report(ctx, `${points.length - tested} of ${points.length} injection point(s) not tested`);
      if (failed.length && failed.length === tested) throw new Error(`every injection point failed (${failed.length}), first: ${failed[0]}`);
      if (failed.length) ctx.log('WARN', `${failed.length} of ${tested} injection point(s) could not be tested: ${failed.slice(0, 3).join('; ')}`);
      ctx.log('INFO', `${tested} injection point(s) tested with ${budget.used} request(s)`);
    },
  };
}

/** A random lower-case marker nobody's page contains (`rmp` + 8 letters and digits). */
export function marker(): string {
  return `rmp${Math.random().toString(36).slice(2, 10).padEnd(8, '0')}`;
}

/** Two random factors whose product a page will not contain by chance. */
export function factors(): { a: number; b: number; product: string } {
  const a = 1000 + Math.floor(Math.random() * 8999);
  const b = 1000 + Math.floor(Math.random() * 8999);
  return { a, b, product: String(a * b) };
}

/** A single-line excerpt of `body` around `at`. */
export function around(body: string, at: number, length = 160): string {
  const from = Math.max(0, at - 60);
  return body.slice(from, from + length).replace(/\s+/g, ' ').trim();
}
