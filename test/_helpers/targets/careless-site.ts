import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A site configured the careless way Debian's Apache makes easy, and its tidy twin. The
 * careless one: an autoindex listing of /files/ with Apache's sort links, a database dump
 * listed in it, an .env and a config.php.bak next to it that the listing hides (Apache's
 * IndexIgnore hides dot-files and backups), a session cookie set over plain HTTP by a
 * linked page only, and security headers on the home page but not on the others. Every
 * request path is recorded, so tests can see what the crawler asked for.
 */
export interface CarelessSite {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Paths with query strings, in arrival order. */
  requests: string[];
}

const HARDENED = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

function html(res: ServerResponse, body: string, headers: Record<string, string> = {}, status = 200): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
}

function text(res: ServerResponse, body: string, type = 'text/plain'): void {
  res.setHeader('content-type', type);
  res.end(body);
}

/** Apache 2.4 mod_autoindex, FancyIndexing on: the title, the sort links, the entries. */
function listing(path: string, entries: string[]): string {
  const sorts = ['C=N;O=D', 'C=M;O=A', 'C=S;O=A', 'C=D;O=A'].map((q) => `<a href="?${q}">${q[2]}</a>`).join(' ');
  return `<h1>Index of ${path}</h1><pre>${sorts}<hr><a href="/">Parent Directory</a>\n${entries.map((e) => `<a href="${e}">${e}</a>`).join('\n')}</pre>`;
}

const DUMP = '-- MySQL dump 10.13  Distrib 10.11.6-MariaDB\n--\nCREATE TABLE `users` (\n  `id` int NOT NULL,\n  `email` varchar(200)\n);\nINSERT INTO `users` VALUES (1,\'ann@example.test\');\n';

export function carelessSite(kind: 'careless' | 'tidy'): CarelessSite {
  const careless = kind === 'careless';
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/':
        return html(res, '<a href="/files/">files</a> <a href="/shop/">shop</a> <a href="/about">about</a>', HARDENED);
      case '/about':
        return html(res, '<p>about us</p>', careless ? {} : HARDENED);
      case '/shop/':
        if (careless) res.setHeader('set-cookie', ['PHPSESSID=9f8e7d6c5b4a39281716; path=/']);
        else res.setHeader('set-cookie', ['PHPSESSID=9f8e7d6c5b4a39281716; path=/; HttpOnly; SameSite=Lax']);
        return html(res, '<p>shop</p><a href="/shop/cart">cart</a>', careless ? {} : HARDENED);
      case '/shop/cart':
        return html(res, '<p>cart</p>', careless ? {} : HARDENED);
      case '/files/':
        if (!careless) return html(res, '<p>Downloads</p><a href="/files/notes.txt">notes</a>', HARDENED);
        return html(res, listing('/files', ['notes.txt', 'dump.sql', 'config.php']));
      case '/files/notes.txt':
        return text(res, 'nothing to see\nKEY_FINGERPRINT_NOTE=see wiki\n');
      case '/files/dump.sql':
        return careless ? text(res, DUMP, 'application/sql') : html(res, 'not found', {}, 404);
      case '/files/config.php':
        return html(res, '<p>configured</p>', careless ? {} : HARDENED);
      case '/files/.env':
        return careless ? text(res, 'APP_ENV=production\nDB_PASSWORD=hunter2\nSTRIPE_SECRET=sk_live_abc\n') : html(res, 'not found', {}, 404);
      case '/files/config.php.bak':
        return careless ? text(res, "<?php\ndefine('DB_PASSWORD', 'hunter2');\n", 'application/x-trash') : html(res, 'not found', {}, 404);
      default:
        return html(res, 'not found', {}, 404);
    }
  };
  return { handler, requests };
}
