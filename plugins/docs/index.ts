import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { buildOpenApi } from '../../core/http/openapi.ts';
import { packageDir } from '../../core/runtime/project-files.ts';

/** Swagger UI's files, found by the one rule for files on disk (core/runtime/project-files.ts). */
const SWAGGER_DIR = packageDir('swagger-ui-dist');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Rampart API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// Served as a file rather than inline so the page works under a strict CSP.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui', deepLinking: true, persistAuthorization: false });\n`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'";

/** The OpenAPI document and browsable docs (Swagger UI, served from node_modules). */
export const docsPlugin: Plugin<AppContext> = {
  name: 'rampart-docs',
  register(server, ctx) {
    let document: Record<string, unknown> | null = null;
    const noInput = { query: Joi.object({}) };
    server.route([
      {
        method: 'GET',
        path: '/api/openapi.json',
        options: { auth: false, validate: noInput, description: 'OpenAPI 3.1 document' },
        handler: () => (document ??= buildOpenApi(server, ctx.version)),
      },
      {
        method: 'GET',
        path: '/docs',
        options: { auth: false, validate: noInput },
        handler: (_request, h) => h.response(PAGE).type('text/html; charset=utf-8').header('content-security-policy', CSP),
      },
      {
        method: 'GET',
        path: '/docs/init.js',
        options: { auth: false, validate: noInput },
        handler: (_request, h) => h.response(INIT).type('application/javascript; charset=utf-8'),
      },
      {
        method: 'GET',
        path: '/docs/assets/{file}',
        options: {
          auth: false,
          validate: {
            query: Joi.object({}),
            params: Joi.object({ file: Joi.string().valid('swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png').required() }),
          },
        },
        handler: (request, h) => h.file(`${SWAGGER_DIR}/${request.params.file}`, { confine: SWAGGER_DIR }),
      },
    ]);
  },
};
