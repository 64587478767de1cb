import { exec, execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import mysql from 'mysql2/promise';
import { startHttpTarget, type HttpTarget } from './http-target.ts';

/**
 * Two small web applications for the active checks, written for the tests: `vulnerable`
 * has exactly one injection flaw per endpoint (real SQL on SQLite and MariaDB, a real
 * shell, real files, a real template evaluator), `safe` is its twin with the same pages,
 * links and forms done right. Each endpoint encodes its output for HTML unless
 * reflected XSS is its flaw, so every family is found where it was planted and nowhere else.
 */
export interface InjectionSite extends HttpTarget {
  /** The planted flaws, as `<check id> <METHOD> <path> <parameter>`. */
  planted: string[];
}

/** better-sqlite3 (a dependency, used by knex) ships no types: the three calls used here. */
interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): { get(...params: unknown[]): unknown };
  close(): void;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteDb;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function page(res: ServerResponse, body: string, status = 200): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(`<!doctype html><html><head><title>shop</title></head><body>${body}</body></html>`);
}

/** A template evaluator of the kind people write: `{{ expr }}` evaluated as JavaScript over the data. */
function render(template: string, data: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    try {
      return String(new Function(...Object.keys(data), `return (${expr});`)(...Object.values(data)));
    } catch {
      return '';
    }
  });
}

function body(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => resolve(new URLSearchParams(raw)));
  });
}

function sh(command: string): Promise<string> {
  return new Promise((resolve) => exec(command, { timeout: 5000 }, (_e, stdout) => resolve(String(stdout))));
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => execFile(file, args, { timeout: 5000 }, (_e, stdout) => resolve(String(stdout))));
}

const HOME = (withMariadb: boolean) => `
  <a href="/search?q=shoes">search</a> <a href="/profile?name=ann">profile</a>
  <form method="post" action="/comment"><textarea name="text">hi</textarea><input type="submit" value="send"></form>
  <a href="/item?id=1">item</a> <a href="/product?name=apple">product</a> ${withMariadb ? '<a href="/track?ref=home">track</a>' : ''}
  <a href="/download?file=docs/report.txt">report</a> <a href="/lookup?host=localhost">lookup</a> <a href="/ping?host=127.0.0.1">ping</a>
  <a href="/greet?name=World">greet</a>`;

/**
 * Starts the vulnerable site or its safe twin. The time-based SQL endpoint (`/track`)
 * needs MariaDB (`mariadbUrl`); without it the endpoint is not linked.
 */
export async function startInjectionSite(kind: 'vulnerable' | 'safe', mariadbUrl?: string): Promise<InjectionSite> {
  const vulnerable = kind === 'vulnerable';
  const db = new Database(':memory:');
  db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price INTEGER); INSERT INTO items VALUES (1, 'apple', 3), (2, 'pear', 4);");
  const pool = mariadbUrl ? mysql.createPool({ uri: mariadbUrl, connectionLimit: 2 }) : null;
  const root = mkdtempSync(join(tmpdir(), 'rampart-files-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'report.txt'), 'quarterly report\n');
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = (name: string) => url.searchParams.get(name) ?? '';
    switch (url.pathname) {
      case '/':
        return page(res, HOME(pool !== null));
      case '/mini': // a small corner of the site: one XSS and one SQL injection
        return page(res, '<a href="/search?q=shoes">search</a> <a href="/item?id=1">item</a>');
      case '/search': // reflected XSS in text
        return page(res, `<p>You searched for ${vulnerable ? q('q') : esc(q('q'))}</p>`);
      case '/profile': // reflected XSS in an attribute: < and > encoded, quotes not
        return page(res, `<form action="/profile"><input name="name" value="${vulnerable ? q('name').replace(/</g, '&lt;').replace(/>/g, '&gt;') : esc(q('name'))}"></form>`);
      case '/comment': { // reflected XSS from a POST form
        const text = (await body(req)).get('text') ?? '';
        return page(res, `<div class="comment">${vulnerable ? text : esc(text)}</div>`);
      }
      case '/item': { // SQL injection, errors shown (numeric context)
        try {
          const row = vulnerable ? db.prepare(`SELECT name FROM items WHERE id = ${q('id')}`).get() : db.prepare('SELECT name FROM items WHERE id = ?').get(q('id'));
          return page(res, `<h1>${esc(String((row as { name?: string } | undefined)?.name ?? 'none'))}</h1>`);
        } catch (err) {
          return page(res, `<pre>Database error: ${esc((err as Error).message)}</pre>`, 500);
        }
      }
      case '/product': { // blind SQL injection: errors hidden, the row shown or not (string context)
        let row: { name: string; price: number } | undefined;
        try {
          row = (vulnerable ? db.prepare(`SELECT name, price FROM items WHERE name = '${q('name')}'`).get() : db.prepare('SELECT name, price FROM items WHERE name = ?').get(q('name'))) as typeof row;
        } catch {
          row = undefined;
        }
        return page(res, row ? `<h1>${esc(row.name)}</h1><p>Price: ${row.price}</p><p>In stock</p>` : '<p>No such product.</p>');
      }
      case '/track': { // time-based blind SQL injection on MariaDB: the answer never changes
        try {
          if (vulnerable) await pool!.query(`SELECT '${q('ref')}' AS r`);
          else await pool!.query('SELECT ? AS r', [q('ref')]);
        } catch {
          // errors are swallowed: only time tells
        }
        return page(res, '<p>Thanks.</p>');
      }
      case '/download': { // path traversal
        const file = vulnerable ? join(root, q('file')) : join(root, 'docs', basename(q('file')));
        try {
          res.setHeader('content-type', 'text/plain');
          return void res.end(readFileSync(file));
        } catch {
          return page(res, 'no such file', 404);
        }
      }
      case '/lookup': { // OS command injection, output shown
        const out = vulnerable ? await sh(`getent hosts ${q('host')}`) : await run('getent', ['hosts', q('host')]);
        return page(res, `<pre>${esc(out)}</pre>`);
      }
      case '/ping': { // blind OS command injection: the answer never changes
        if (vulnerable) await sh(`test -n ${q('host')}`);
        else await run('test', ['-n', q('host')]);
        return page(res, '<p>Queued.</p>');
      }
      case '/greet': // server-side template injection
        return page(res, vulnerable ? render(`<p>Hello ${esc(q('name'))}!</p>`, {}) : render('<p>Hello {{ name }}!</p>', { name: esc(q('name')) }));
      default:
        return page(res, 'not found', 404);
    }
  };
  const target = await startHttpTarget((req, res) => void handler(req, res).catch(() => page(res, 'error', 500)));
  const planted = vulnerable
    ? [
        'web_app:xss-reflected GET /search q',
        'web_app:xss-reflected GET /profile name',
        'web_app:xss-reflected POST /comment text',
        'web_app:sql-injection GET /item id',
        'web_app:sql-injection GET /product name',
        ...(pool ? ['web_app:sql-injection GET /track ref'] : []),
        'web_app:path-traversal GET /download file',
        'web_app:command-injection GET /lookup host',
        'web_app:command-injection GET /ping host',
        'web_app:template-injection GET /greet name',
      ]
    : [];
  return {
    ...target,
    planted,
    async close() {
      await target.close();
      db.close();
      await pool?.end();
    },
  };
}
