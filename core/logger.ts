import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Keys whose values are secrets wherever they appear (two levels deep). pino replaces
 * them before serialising, so a secret never reaches a log line even if someone logs
 * a whole request or payload by mistake.
 */
const SECRET_KEYS = ['authorization', 'password', 'secret', 'token', 'api_key', 'apiKey', 'cookie', 'set-cookie'];

export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'rampart' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination as DestinationStream | undefined,
  );
}

/** Strips query strings: they may carry a token (the event stream accepts `token=`). */
export function safePath(url: URL | string): string {
  const text = typeof url === 'string' ? url : url.pathname;
  const q = text.indexOf('?');
  return q === -1 ? text : text.slice(0, q);
}
