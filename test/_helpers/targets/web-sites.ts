import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function html(res: ServerResponse, body: string, status = 200): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
}

/**
 * A site with every misconfiguration the web_app scanner looks for: no security headers,
 * a bare session cookie, version banners, a directory index, reflected CORS with
 * credentials, TRACE, http:// script on an HTTPS page, an open redirect on /login,
 * and .git/config + .env in the web root.
 */
export const badSite: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  res.setHeader('server', 'Apache/2.4.41 (Ubuntu)');
  res.setHeader('x-powered-by', 'PHP/7.4.3');
  if (req.headers.origin) {
    res.setHeader('access-control-allow-origin', req.headers.origin);
    res.setHeader('access-control-allow-credentials', 'true');
  }
  if (req.method === 'TRACE') {
    res.setHeader('content-type', 'message/http');
    return void res.end(`TRACE ${req.url} HTTP/1.1\r\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n`);
  }
  switch (url.pathname) {
    case '/':
      res.setHeader('set-cookie', ['sid=s3cr3t; Path=/']);
      return html(res, '<a href="/files/readme.txt">readme</a> <a href="/login">login</a> <script src="http://cdn.example.test/lib.js"></script>');
    case '/files/':
      return html(res, '<h1>Index of /files</h1><a href="readme.txt">readme.txt</a>');
    case '/files/readme.txt':
      res.setHeader('content-type', 'text/plain');
      return void res.end('hello');
    case '/login': {
      const next = url.searchParams.get('next');
      if (next) {
        res.statusCode = 302;
        res.setHeader('location', next);
        return void res.end();
      }
      return html(res, '<form method="post"></form>');
    }
    case '/.git/config':
      res.setHeader('content-type', 'text/plain');
      return void res.end('[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
    case '/.env':
      res.setHeader('content-type', 'text/plain');
      return void res.end('APP_ENV=production\nDB_PASSWORD=hunter2\n');
    default:
      return html(res, 'not found', 404);
  }
};

/**
 * The same pages without the problems; unknown paths answer 200 with an HTML "not found"
 * page (a soft 404) so content proofs, not status codes, decide.
 */
export const goodSite: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  res.setHeader('server', 'nginx');
  res.setHeader('content-security-policy', "default-src 'self'; frame-ancestors 'self'");
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'strict-origin-when-cross-origin');
  res.setHeader('strict-transport-security', 'max-age=31536000');
  if (req.method === 'TRACE') {
    res.statusCode = 405;
    return void res.end();
  }
  switch (url.pathname) {
    case '/':
      res.setHeader('set-cookie', ['sid=s3cr3t; Path=/; Secure; HttpOnly; SameSite=Lax']);
      return html(res, '<a href="/files/readme.txt">readme</a> <a href="/login">login</a> <script src="https://127.0.0.1/lib.js"></script><img src="/logo.png">');
    case '/files/readme.txt':
      res.setHeader('content-type', 'text/plain');
      return void res.end('hello');
    case '/login':
      if (url.searchParams.get('next')) {
        res.statusCode = 302;
        res.setHeader('location', '/home');
        return void res.end();
      }
      return html(res, '<form method="post"></form>');
    default:
      return html(res, 'Sorry, that page does not exist.');
  }
};
