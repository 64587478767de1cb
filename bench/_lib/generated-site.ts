import { exec } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

/**
 * A generated site of exactly `pages` crawlable URLs (HTML pages and linked files) with a
 * known set of planted problems and decoys that look alike but are fine. Every planted
 * problem is listed in `planted` as `<kind> <where>`, the same key the benchmark derives
 * from each finding, so recall and precision are counted per kind.
 */
export interface GeneratedSite {
  url: string;
  planted: string[];
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): { get(...params: unknown[]): unknown };
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteDb;

const HARDENED: Record<string, string> = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const SECTIONS = 9;
const LISTINGS: Record<string, string[]> = {
  '/dl0/': ['dump.sql', 'readme.txt'],
  '/dl1/': ['id_rsa', 'notes.txt'],
  '/dl2/': ['config.php', 'changelog.txt'],
  '/dl3/': ['export.sql', 'settings.txt'],
  '/dl4/': ['site-logo.zip', 'report.csv'],
};
const HIDDEN_ENV = ['/dl0/.env', '/dl3/.env'];
const APP = [
  '/app/search?q=shoes', '/app/profile?name=ann', '/app/item?id=1', '/app/product?name=apple', '/app/file?path=docs/a.txt', '/app/lookup?host=localhost',
  '/app/ping?host=127.0.0.1', '/app/hello?name=World', '/app/go?next=/home',
  // decoys: the same kinds of endpoint, done right
  '/app/safe-search?q=shoes', '/app/safe-item?id=1', '/app/safe-file?path=docs/a.txt', '/app/safe-hello?name=World', '/app/safe-go?next=/home', '/app/news?page=2',
];

export async function startGeneratedSite(pages = 500): Promise<GeneratedSite> {
  const fixed = 1 + SECTIONS + 1 + Object.keys(LISTINGS).length + Object.values(LISTINGS).flat().length + APP.length;
  const articles = pages - fixed;
  if (articles < SECTIONS) throw new Error(`${pages} pages is too small for the site's fixed parts (${fixed})`);
  const perSection = Math.ceil(articles / SECTIONS);
  const articlePaths: string[] = [];
  for (let i = 0; i < articles; i++) articlePaths.push(`/s${i % SECTIONS}/p${Math.floor(i / SECTIONS)}.html`);
  const noCsp = articlePaths.filter((_p, i) => i % 7 === 3);
  const cookiePages: Record<string, string> = {
    [articlePaths[40]!]: 'SESSIONID=a81f2c9d3e4b5a6f7081; Path=/',
    [articlePaths[150]!]: 'auth_token=Zm9vYmFyYmF6cXV4cXV1eA; Path=/; HttpOnly',
    [articlePaths[260]!]: 'prefs=compact; Path=/',
    [articlePaths[300]!]: 'theme=dark; Path=/; HttpOnly; SameSite=Lax',
  };
  const db = new Database(':memory:');
  db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'apple'), (2, 'pear');");
  let requests = 0;

  const html = (res: ServerResponse, body: string, headers: Record<string, string> = HARDENED, status = 200) => {
    res.statusCode = status;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.end(`<!doctype html><html><head><title>gen</title></head><body>${body}</body></html>`);
  };
  const text = (res: ServerResponse, body: string | Buffer, type = 'text/plain') => {
    res.setHeader('content-type', type);
    res.end(body);
  };
  const sh = (cmd: string) => new Promise<string>((resolve) => exec(cmd, { timeout: 5000 }, (_e, out) => resolve(String(out))));

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const q = (n: string) => url.searchParams.get(n) ?? '';
    if (p === '/') return html(res, [...Array(SECTIONS).keys()].map((s) => `<a href="/s${s}/">section ${s}</a>`).join(' ') + Object.keys(LISTINGS).map((d) => ` <a href="${d}">${d}</a>`).join('') + ' <a href="/tools/">tools</a>');
    if (p === '/tools/') return html(res, APP.map((a) => `<a href="${a}">${a}</a>`).join(' '));
    const section = /^\/s(\d+)\/$/.exec(p);
    if (section) return html(res, articlePaths.filter((a) => a.startsWith(`/s${section[1]}/`)).map((a) => `<a href="${a}">${a}</a>`).join(' '));
    if (articlePaths.includes(p)) {
      if (cookiePages[p]) res.setHeader('set-cookie', cookiePages[p]!);
      return html(res, `<p>article ${p} of ${perSection}</p>`, noCsp.includes(p) ? { 'x-frame-options': 'SAMEORIGIN', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } : HARDENED);
    }
    if (LISTINGS[p]) {
      const sorts = ['C=N;O=D', 'C=M;O=A', 'C=S;O=A', 'C=D;O=A'].map((s) => `<a href="?${s}">${s[2]}</a>`).join(' ');
      return html(res, `<h1>Index of ${p.slice(0, -1)}</h1><pre>${sorts}<hr>${LISTINGS[p]!.map((f) => `<a href="${f}">${f}</a>`).join('\n')}</pre>`);
    }
    switch (p) {
      case '/dl0/dump.sql': return text(res, '-- MySQL dump 10.13\nCREATE TABLE `customers` (`id` int);\nINSERT INTO `customers` VALUES (1);\n');
      case '/dl3/export.sql': return text(res, 'CREATE TABLE orders (id int);\nINSERT INTO orders VALUES (7);\n');
      case '/dl1/id_rsa': return text(res, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n');
      case '/dl2/config.php': return html(res, '<p>ok</p>');
      case '/dl2/config.php.bak': return text(res, "<?php define('DB_PASSWORD', 'x');", 'application/octet-stream');
      case '/dl0/.env': case '/dl3/.env': return text(res, 'APP_KEY=base64:abc\nDB_PASSWORD=secret\n');
      case '/dl4/site-logo.zip': return text(res, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]), 'application/zip');
      case '/dl0/readme.txt': case '/dl1/notes.txt': case '/dl2/changelog.txt': case '/dl3/settings.txt': return text(res, 'LOG_LEVEL=info\nPAGE_SIZE=20\n');
      case '/dl4/report.csv': return text(res, 'a,b\n1,2\n', 'text/csv');
      case '/app/search': return html(res, `<p>Results for ${q('q')}</p>`);
      case '/app/safe-search': return html(res, `<p>Results for ${esc(q('q'))}</p>`);
      case '/app/profile': return html(res, `<input name="name" value="${q('name').replace(/</g, '&lt;').replace(/>/g, '&gt;')}">`);
      case '/app/item':
      case '/app/safe-item': {
        try {
          const row = p === '/app/item' ? db.prepare(`SELECT name FROM items WHERE id = ${q('id')}`).get() : db.prepare('SELECT name FROM items WHERE id = ?').get(q('id'));
          return html(res, `<h1>${esc(String((row as { name?: string } | undefined)?.name ?? 'none'))}</h1>`);
        } catch (err) {
          return html(res, `<pre>${esc((err as Error).message)}</pre>`, HARDENED, 500);
        }
      }
      case '/app/product': {
        let row: unknown;
        try {
          row = db.prepare(`SELECT name FROM items WHERE name = '${q('name')}'`).get();
        } catch {
          row = undefined;
        }
        return html(res, row ? '<h1>apple</h1><p>In stock</p>' : '<p>No such product.</p>');
      }
      case '/app/file': return q('path').includes('etc/passwd') && q('path').includes('..') ? text(res, 'root:x:0:0:root:/root:/bin/bash\n') : text(res, 'a');
      case '/app/safe-file': return text(res, 'a');
      case '/app/lookup': return html(res, `<pre>${esc(await sh(`getent hosts ${q('host')}`))}</pre>`);
      case '/app/ping': await sh(`test -n ${q('host')}`); return html(res, '<p>Queued.</p>');
      case '/app/hello': return html(res, `<p>Hello ${esc(q('name')).replace(/\{\{\s*(\d+)\*(\d+)\s*\}\}/g, (_m, a: string, b: string) => String(Number(a) * Number(b)))}</p>`);
      case '/app/safe-hello': return html(res, `<p>Hello ${esc(q('name'))}</p>`);
      case '/app/go': res.statusCode = 302; res.setHeader('location', q('next') || '/'); return void res.end();
      case '/app/safe-go': res.statusCode = 302; res.setHeader('location', q('next').startsWith('/') && !q('next').startsWith('//') ? q('next') : '/'); return void res.end();
      case '/app/news': return html(res, `<p>page ${Number(q('page')) || 1}</p>`);
      default: return html(res, 'not found', HARDENED, 404);
    }
  };
  const server = createServer((req, res) => void handler(req, res).catch(() => html(res, 'error', HARDENED, 500)));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const planted = [
    ...Object.keys(LISTINGS).map((d) => `directory-listing ${d}`),
    'sql-dump /dl0/dump.sql', 'sql-dump /dl3/export.sql', 'private-key /dl1/id_rsa', 'source /dl2/config.php.bak', ...HIDDEN_ENV.map((e) => `env ${e}`),
    'cookie-attributes SESSIONID', 'cookie-attributes auth_token', 'cookie-attributes prefs', 'cleartext-session-cookie SESSIONID', 'cleartext-session-cookie auth_token',
    ...noCsp.map((a) => `missing-csp ${a}`),
    'xss-reflected GET /app/search q', 'xss-reflected GET /app/profile name', 'sql-injection GET /app/item id', 'sql-injection GET /app/product name',
    'path-traversal GET /app/file path', 'command-injection GET /app/lookup host', 'command-injection GET /app/ping host', 'template-injection GET /app/hello name',
    'open-redirect /app/go',
  ];
  return {
    url: `http://127.0.0.1:${port}`,
    planted,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
