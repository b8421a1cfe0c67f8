// The service's own endpoints: health, metrics, the OpenAPI documents and the reference page. No
// authentication, no shape.
import { documentQuerySchema } from '../schemas/docs';
import { operation } from './operation';

export const getHealth = operation({
  id: 'getHealth',
  routeName: 'health',
  method: 'get',
  path: '/v1/health',
  tag: 'Service',
  summary: 'Health',
  description: 'Aggregate availability: the database and Temporal are checked on every call.',
  authenticated: false,
  create: false,
  shapes: [],
  responses: [
    { status: 200, description: 'Every check is `ok`.', json: { A: { component: 'HealthOk', examples: ['healthOk'] } } },
    { status: 503, description: 'At least one check is `unavailable`, or the process is stopping. Carries `Retry-After`.', json: { A: { component: 'HealthUnavailable', examples: ['healthUnavailable', 'healthShuttingDown'] } } },
  ],
});

export const getMetrics = operation({
  id: 'getMetrics',
  routeName: 'metrics',
  method: 'get',
  path: '/metrics',
  tag: 'Service',
  summary: 'Prometheus metrics',
  description: 'Prometheus text exposition format: requests by route and status, latency histograms. On this port only in development; with `API_METRICS_PORT` set, and always in production, on that port instead, and this path answers 404.',
  authenticated: false,
  create: false,
  shapes: [],
  responses: [{ status: 200, description: 'The metrics.', mediaType: 'text/plain' }],
});

export const getOpenApiDocument = operation({
  id: 'getOpenApiDocument',
  routeName: 'openapiDocument',
  method: 'get',
  path: '/openapi.json',
  tag: 'Service',
  summary: 'This OpenAPI document',
  description: 'The OpenAPI 3.1 description of the interface in one version: without `version` the current one, with '
    + '`?version=2024-06-01` the older shape. Request schemas are generated from the validation schemas the API runs. '
    + 'An unknown `version` is `400 invalid_request` (param `version`).',
  authenticated: false,
  create: false,
  shapes: [],
  query: { A: documentQuerySchema },
  responses: [{ status: 200, description: 'The document.', json: { A: { component: 'OpenApiDocument' } } }],
});

export const getDocsPage = operation({
  id: 'getDocsPage',
  routeName: 'docsPage',
  method: 'get',
  path: '/docs',
  tag: 'Service',
  summary: 'API reference page',
  description: 'The document of a version rendered as HTML (`?version=` as for the document): operations by resource, schemas, '
    + 'examples and the error catalogue (anchors `#error-<code>`, which `error.doc_url` links to).',
  authenticated: false,
  create: false,
  shapes: [],
  query: { A: documentQuerySchema },
  responses: [{ status: 200, description: 'The page.', mediaType: 'text/html' }],
});
