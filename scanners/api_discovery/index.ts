import { defineScanner } from '../../core/plugin-api/index.ts';
import { apiDocuments } from './checks/api-documents.ts';
import { graphqlIntrospection } from './checks/graphql-introspection.ts';
import { unauthenticatedEndpoints } from './checks/unauthenticated-endpoints.ts';
import { verboseErrors } from './checks/verbose-errors.ts';

/** API discovery and documentation analysis (see README.md). */
export default defineScanner({
  name: 'api_discovery',
  version: '1.0.0',
  apiVersion: '^1.5.0',
  description: 'OpenAPI/Swagger documents, GraphQL introspection, operations answering without the declared authentication, verbose errors.',
  capabilities: ['net:outbound'],
  scanTypes: ['api_discovery', 'api'],
  assetTypes: ['url', 'domain'],
  checks: [apiDocuments, graphqlIntrospection, unauthenticatedEndpoints, verboseErrors],
});
