/** Types of host-timing.mjs. */
export interface HostTimingOptions {
  adaptive?: boolean;
  minTimeoutMs?: number;
  maxTimeoutMs?: number;
  initialTimeoutMs?: number;
  /** The scan's timing over all hosts: used for a host until it has answered itself. */
  group?: HostTiming | null;
}

export class HostTiming {
  constructor(opts?: HostTimingOptions);
  readonly adaptive: boolean;
  readonly group: HostTiming | null;
  readonly min: number;
  readonly max: number;
  readonly initial: number;
  srtt: number | null;
  rttvar: number | null;
  samples: number;
  sample(ms: number): void;
  timeout(): number;
}
