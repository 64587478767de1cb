import Joi from 'joi';

/** The SSE event stream (plugins/stream, core/stream/stream-hub.ts). */
export interface StreamConfig {
  /** Interval of the `heartbeat` event (the spec's 30 s). */
  heartbeatMs: number;
  /** The `retry:` value sent once on connect: how long a client waits before reconnecting. */
  retryMs: number;
  /** How far back `Last-Event-ID` replays (the spec's 5 minutes). */
  replayWindowMs: number;
  /** Most events one replay sends; a client further behind gets the newest ones only. */
  replayMaxEvents: number;
  /** A connection whose unsent output exceeds this is closed (it can reconnect with Last-Event-ID). */
  maxBufferedBytes: number;
}

/** SIEM forwarding over syslog (core/siem). */
export interface SiemConfig {
  /** HOSTNAME field of every syslog message; null means this machine's host name. */
  hostname: string | null;
  /** Reconnect backoff after a failed connect or write: doubles from min to max. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  connectTimeoutMs: number;
  /** A syslog message longer than this (in bytes) is truncated; rsyslog's default limit is 8096. */
  maxMessageBytes: number;
  /** Events per batch a forwarder reads and writes before it moves its cursor. */
  batchSize: number;
  /** How often each process re-reads the integrations table (changes made by other processes). */
  refreshIntervalMs: number;
  maxPerTenant: number;
}

export const streamConfigSchema = Joi.object<StreamConfig>({
  heartbeatMs: Joi.number().integer().min(10).max(600000).required(),
  retryMs: Joi.number().integer().min(0).max(600000).required(),
  replayWindowMs: Joi.number().integer().min(0).max(24 * 3600 * 1000).required(),
  replayMaxEvents: Joi.number().integer().min(1).max(100000).required(),
  maxBufferedBytes: Joi.number().integer().min(1024).required(),
});

export const siemConfigSchema = Joi.object<SiemConfig>({
  hostname: Joi.string().pattern(/^[\x21-\x7e]{1,255}$/).allow(null).required(),
  reconnectMinMs: Joi.number().integer().min(1).max(600000).required(),
  reconnectMaxMs: Joi.number().integer().min(Joi.ref('reconnectMinMs')).max(600000).required(),
  connectTimeoutMs: Joi.number().integer().min(100).max(120000).required(),
  maxMessageBytes: Joi.number().integer().min(480).max(65536).required(),
  batchSize: Joi.number().integer().min(1).max(10000).required(),
  refreshIntervalMs: Joi.number().integer().min(100).max(600000).required(),
  maxPerTenant: Joi.number().integer().min(1).required(),
});
