import type { Role } from './roles.ts';
import { LoopMonitor, startWatched } from './loop-monitor.ts';

/** A long-running part of the process (a poll loop, a consumer, a scheduler) and the roles that run it. */
export interface BackgroundService {
  name: string;
  roles: readonly Role[];
  start(): Promise<void> | void;
  /** Must be safe when the service never started (the app stops every service it knows). */
  stop(): Promise<void> | void;
}

/**
 * Every background service of the process, in start order. `app.ts` registers them and
 * starts the ones a process's roles ask for; `stop()` stops all of them, newest first,
 * since a test or a route may have started one by hand.
 */
export class BackgroundRegistry {
  readonly #services: BackgroundService[] = [];
  readonly #started = new Set<string>();
  /** The poll loops the started services run, by service: what readiness checks. */
  readonly loops = new LoopMonitor();

  register(service: BackgroundService): this {
    if (this.#services.some((s) => s.name === service.name)) throw new Error(`background service "${service.name}" is registered twice`);
    this.#services.push(service);
    return this;
  }

  get names(): string[] {
    return this.#services.map((s) => s.name);
  }

  /** The services the given roles run, in start order. */
  forRoles(roles: readonly Role[]): BackgroundService[] {
    return this.#services.filter((s) => s.roles.some((r) => roles.includes(r)));
  }

  isStarted(name: string): boolean {
    return this.#started.has(name);
  }

  /** Starts, in registration order, what `roles` run and is not running yet; returns their names. */
  async start(roles: readonly Role[]): Promise<string[]> {
    const started: string[] = [];
    for (const service of this.forRoles(roles)) {
      if (this.#started.has(service.name)) continue;
      await startWatched(this.loops, service.name, () => service.start());
      this.#started.add(service.name);
      started.push(service.name);
    }
    return started;
  }

  /** Stops every service, in reverse registration order. */
  async stop(): Promise<void> {
    for (const service of [...this.#services].reverse()) {
      await service.stop();
      this.#started.delete(service.name);
    }
  }
}
