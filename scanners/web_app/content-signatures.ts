import { headerOf, type HttpResponse } from '../_lib/http.ts';

/**
 * Content proofs: what a fetched body is, judged by its bytes, never by its status or
 * name alone (a site that answers 200 to everything must not produce findings). Each
 * proof returns a redacted indicator: names of keys, tables and users, never values.
 */
export interface SensitiveContent {
  /** Stable kind, for benchmarks and tags: env, secrets, sql-dump, private-key, git, htpasswd, source, archive, ds-store, server-status. */
  kind: string;
  what: string;
  /** High: credentials or data (C:H); medium: structure and names (C:L). */
  high: boolean;
  /** A redacted excerpt that shows the proof. */
  indicator: string;
}

/** Where the body came from: a probe for a sensitive name, or a page the crawl fetched anyway. */
export interface Origin {
  /** The path was asked for because of its name (`.env`, `backup.zip`…): archives and any KEY= file count. */
  probedAs?: string;
}

const text = (res: HttpResponse) => !/html/i.test(headerOf(res, 'content-type') ?? '');
const PRIVATE_KEY = /-----BEGIN ((?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----/;
const SQL_DUMP_HEADER = /^-- (MySQL dump|MariaDB dump|PostgreSQL database dump|Dumped by pg_dump)/m;
const SQL_STATEMENT = /^\s*(CREATE TABLE(?: IF NOT EXISTS)?|INSERT INTO)\s+[`"[]?([\w.$-]+)/gim;
const ENV_LINE = /^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=\s*\S/gm;
/** Key names that hold secrets (the values are never kept). */
const SECRET_KEY = /PASS(WORD|WD)?$|PWD$|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|^AUTH|_AUTH$|DSN$|DATABASE_URL$|_KEY$/;
/**
 * A crawled archive counts only when its name says backup: a whole-site name (`site.zip`,
 * `www.tar.gz`) or one containing backup, dump or bak (`db_dump-2024.zip`). A linked
 * `site-logo.zip` is a download, not a leak. Probed names are backups by construction.
 */
const BACKUP_NAME = /^(backups?|bak|dump|db|database|site|www|wwwroot|htdocs|public_html|web|old|copy)$|backup|dump|(^|[._-])bak([._-]|$)/i;

function envKeys(body: string): string[] {
  return [...new Set([...body.matchAll(ENV_LINE)].map((m) => m[1]!))];
}

function sqlDump(res: HttpResponse): SensitiveContent | null {
  if (!text(res)) return null;
  const statements = [...res.body.matchAll(SQL_STATEMENT)].map((m) => `${m[1]!.toUpperCase()} ${m[2]}`);
  const header = SQL_DUMP_HEADER.exec(res.body)?.[1];
  if (!header && !statements.some((s) => s.startsWith('CREATE TABLE'))) return null;
  const tables = [...new Set(statements)].slice(0, 5);
  return { kind: 'sql-dump', what: 'database dump', high: true, indicator: [header ? `-- ${header}` : null, ...tables].filter(Boolean).join('; ') };
}

function secrets(res: HttpResponse, origin: Origin): SensitiveContent | null {
  if (!text(res)) return null;
  const keys = envKeys(res.body);
  const secret = keys.filter((k) => SECRET_KEY.test(k));
  // A file named .env (asked for, or linked) counts with any KEY= line; elsewhere a secret-named key is needed.
  const envFile = /(^|\/)\.env[^/]*$/.test(origin.probedAs ?? new URL(res.url).pathname);
  if (envFile && keys.length) return { kind: 'env', what: 'environment file with settings and secrets', high: true, indicator: keys.slice(0, 8).map((k) => `${k}=<redacted>`).join(' ') };
  if (!secret.length) return null;
  return { kind: 'secrets', what: 'file with secrets (KEY=value)', high: true, indicator: secret.slice(0, 8).map((k) => `${k}=<redacted>`).join(' ') };
}

function archive(res: HttpResponse, origin: Origin): SensitiveContent | null {
  const base = (new URL(res.url).pathname.split('/').pop() ?? '').replace(/\.(zip|tar\.gz|tgz|gz|7z|rar)$/i, '');
  if (!text(res) || (origin.probedAs === undefined && !BACKUP_NAME.test(base))) return null;
  const b = res.bytes;
  const zip = b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
  const gzip = b[0] === 0x1f && b[1] === 0x8b;
  if (!zip && !gzip) return null;
  return { kind: 'archive', what: 'backup archive', high: true, indicator: `${zip ? 'ZIP' : 'gzip'} archive (${zip ? '50 4b 03 04' : '1f 8b'}), ${b.length}${b.length >= 256 * 1024 ? '+' : ''} bytes` };
}

/** Proofs in the order they are tried; the first that matches names the file. */
const PROOFS: Array<(res: HttpResponse, origin: Origin) => SensitiveContent | null> = [
  (res) => {
    const m = PRIVATE_KEY.exec(res.body);
    return m ? { kind: 'private-key', what: 'private key', high: true, indicator: m[0] } : null;
  },
  sqlDump,
  (res) => (/^\s*\[core\]/m.test(res.body) && /repositoryformatversion|bare\s*=|filemode/.test(res.body) ? { kind: 'git', what: 'Git repository configuration', high: true, indicator: '[core] repositoryformatversion = <redacted>' } : null),
  (res) => (/^ref: refs\/heads\/\S+\s*$/.test(res.body) ? { kind: 'git', what: 'Git HEAD reference', high: true, indicator: res.body.trim().slice(0, 80) } : null),
  (res) => {
    const users = [...res.body.matchAll(/^([\w.@-]+):(\$apr1\$|\$2[aby]\$|\{SHA\}|\$[56]\$)/gm)].map((m) => m[1]!);
    return text(res) && users.length ? { kind: 'htpasswd', what: 'password file', high: true, indicator: users.slice(0, 5).map((u) => `${u}:<redacted>`).join(' ') } : null;
  },
  (res) => {
    if (!text(res) || !/<\?php\b/.test(res.body)) return null;
    const credentials = /DB_PASSWORD|password|passwd|secret|api_key/i.test(res.body);
    return { kind: 'source', what: credentials ? 'PHP source with credentials' : 'PHP source code', high: credentials, indicator: `<?php … (${credentials ? 'credential names present; values not shown' : 'server-side source served as text'})` };
  },
  secrets,
  archive,
  (res) => (text(res) && [0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31].every((v, i) => res.bytes[i] === v) ? { kind: 'ds-store', what: 'macOS folder index (file names)', high: false, indicator: '00 00 00 01 42 75 64 31 (Bud1)' } : null),
  (res) => (/Apache Server Status for/i.test(res.body) ? { kind: 'server-status', what: 'Apache server-status page', high: false, indicator: 'Apache Server Status for …' } : null),
];

/** What a 200 response body proves to be, or null. */
export function identify(res: HttpResponse, origin: Origin = {}): SensitiveContent | null {
  if (res.status !== 200) return null;
  for (const proof of PROOFS) {
    const found = proof(res, origin);
    if (found) return found;
  }
  return null;
}
