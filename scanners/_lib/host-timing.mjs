// Per-host connect timeouts learned from the host's answers, as nmap does: a smoothed
// round-trip time and its variation (RFC 6298), timeout = srtt + 4 × rttvar, kept
// between a floor and a ceiling. Plain JavaScript for the same reason as connect-engine.mjs.

/**
 * Until the host has answered once, connects wait what its `group` (the other hosts of
 * the scan, as nmap uses its host group's timing) has learned, or `initialTimeoutMs`
 * (default: the ceiling) when nobody has answered yet. With `adaptive: false` every
 * connect waits the ceiling, the old fixed timeout.
 */
export class HostTiming {
  constructor({ adaptive = true, minTimeoutMs = 100, maxTimeoutMs = 1500, initialTimeoutMs, group = null } = {}) {
    this.group = group;
    this.adaptive = adaptive;
    this.min = Math.max(1, minTimeoutMs);
    this.max = Math.max(this.min, maxTimeoutMs);
    this.initial = Math.min(this.max, Math.max(this.min, initialTimeoutMs ?? this.max));
    /** Smoothed RTT in ms, null before the first answer. */
    this.srtt = null;
    this.rttvar = null;
    this.samples = 0;
    this.current = adaptive ? this.initial : this.max;
  }

  /** An answer (SYN-ACK or RST) arrived `ms` after the connect started. */
  sample(ms) {
    this.samples += 1;
    if (this.srtt === null) {
      this.srtt = ms;
      this.rttvar = ms / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms);
      this.srtt = 0.875 * this.srtt + 0.125 * ms;
    }
    if (this.adaptive) this.current = Math.min(this.max, Math.max(this.min, this.srtt + 4 * this.rttvar));
  }

  /** How long a connect to this host may go unanswered before it counts as dropped. */
  timeout() {
    if (this.samples === 0 && this.adaptive && this.group && this.group.samples > 0) return this.group.timeout();
    return this.current;
  }
}
