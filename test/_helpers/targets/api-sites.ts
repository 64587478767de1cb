import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

/** An OpenAPI 3 document: bearer auth globally, /api/health explicitly public. */
export const apiDocument = {
  openapi: '3.0.3',
  info: { title: 'Shop API', version: '1.2.0' },
  servers: [{ url: '/api' }],
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/users': { get: { responses: { 200: { description: 'users' } } }, post: { responses: { 201: { description: 'created' } } } },
    '/orders/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true }], responses: { 200: { description: 'order' } } } },
    '/health': { get: { security: [], responses: { 200: { description: 'ok' } } } },
  },
};

function authorised(req: IncomingMessage): boolean {
  return req.headers.authorization === 'Bearer good-token';
}

/** Shared GraphQL behaviour: introspection answered, or refused like Apollo in production. */
function graphql(res: ServerResponse, introspection: boolean): void {
  if (!introspection) return json(res, 400, { errors: [{ message: 'GraphQL introspection is not allowed' }] });
  json(res, 200, { data: { __schema: { queryType: { name: 'Query', fields: [{ name: 'users' }, { name: 'order' }] }, mutationType: { name: 'Mutation', fields: [{ name: 'deleteUser' }] }, types: [{ name: 'Query' }, { name: 'User' }] } } });
}

/**
 * An API with every problem: its document is linked from / at a non-standard path,
 * GET /api/users answers without the declared bearer token, GraphQL introspection is
 * on, and a malformed URL returns an Express-style stack trace.
 */
export const leakyApi: Handler = (req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/%' || path === '/api/%') {
    res.statusCode = 500;
    res.setHeader('content-type', 'text/html');
    return void res.end("<pre>URIError: Failed to decode param '%'\n    at decodeURIComponent (<anonymous>)\n    at decode_param (/srv/shop/node_modules/express/lib/router/layer.js:172:12)</pre>");
  }
  if (path === '/') {
    res.setHeader('content-type', 'text/html');
    return void res.end('<html><body><a href="/internal/openapi-v2.json">API reference</a></body></html>');
  }
  if (path === '/internal/openapi-v2.json') return json(res, 200, apiDocument);
  if (path === '/graphql' && req.method === 'POST') return graphql(res, true);
  if (path === '/api/users') return json(res, 200, [{ id: 1, email: 'a@shop.test' }]);
  if (path === '/api/health') return json(res, 200, { ok: true });
  if (path.startsWith('/api/orders/')) return authorised(req) ? json(res, 200, { id: 1 }) : json(res, 401, { error: 'unauthorized' });
  json(res, 404, { error: 'not found' });
};

/** The same API done right: the document is public at /openapi.json, every secured operation answers 401, errors are generic. */
export const tidyApi: Handler = (req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/openapi.json') return json(res, 200, apiDocument);
  if (path === '/graphql' && req.method === 'POST') return graphql(res, false);
  if (path === '/api/health') return json(res, 200, { ok: true });
  if (path.startsWith('/api/')) return authorised(req) ? json(res, 200, []) : json(res, 401, { error: 'unauthorized' });
  if (path.includes('%')) return json(res, 400, { error: 'bad request' });
  json(res, 404, { error: 'not found' });
};
