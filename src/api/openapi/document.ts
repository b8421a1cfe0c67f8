// Builds the OpenAPI 3.1 document of the interface in one version from the operations' declarations
// (src/api/operations/): their routes, the joi schemas they validate with, the response schemas of
// their serializers, the error scopes and the event types. One document per version: each
// operation speaks one shape in it (the version's, or the only one it has), so no body is a union
// of the two shapes and generated clients get plain types. Pure and deterministic for a given
// public base URL (its `servers`) and version: built once and cached; `/openapi.json` and `/docs`
// serve these objects.
import { loadConfig } from '../../config';
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../middleware/idempotency-key';
import { OPERATIONS, TAGS } from '../operations';
import type { JsonBody, Operation, PathParameter, SuccessResponse } from '../operations/operation';
import { DEFAULT_VERSION, KNOWN_VERSIONS, shapeOf, type ApiVersion, type Shape } from '../../representations/versions';
import { errorCodesFor } from './error-scopes';
import { errorExample, example } from './examples';
import { joiToJsonSchema, queryParameters } from './request-schemas';
import { REQUEST_ID_PATTERN, responseSchemas } from './response-schemas';
import {
  refName, schemaRef, type ExampleObject, type HeaderObject, type JsonSchema, type MediaTypeObject, type OpenApiDocument,
  type OperationObject, type ParameterObject, type Reference, type ResponseObject,
} from './types';
import { eventSchemas, shapeBCallbacks, webhooks } from './webhooks';
import { eventApiSchemas } from './events';

const parameterRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });
const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

/**
 * Whether a document in `shape` describes the operation: every operation of that shape, every
 * service endpoint, and the Shape A operations, which the older version answers as they are.
 * Shape B's own refund is only in the older version's document.
 */
function describedIn(operation: Operation, shape: Shape): boolean {
  return operation.shapes.length === 0 || operation.shapes.includes(shape) || operation.shapes.includes('A');
}

/** The shape the operation speaks in a document of `shape` (a service endpoint's JSON is listed under `A`). */
function spokenShape(operation: Operation, shape: Shape): Shape {
  return operation.shapes.includes(shape) ? shape : operation.shapes[0] ?? 'A';
}

const PAYMENT_ID_PATTERNS: Record<Shape, string> = { A: '^pay_[A-Za-z0-9]{24}$', B: '^pay_[A-Za-z0-9-]+$' };

function parameters(version: ApiVersion): Record<string, ParameterObject> {
  const shape = shapeOf(version);
  const ids: Record<PathParameter, ParameterObject> = {
    PaymentId: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'A Payment id. A malformed id is `400 invalid_request`; one of another merchant or mode is `404 object_not_found`.',
      schema: { type: 'string', pattern: PAYMENT_ID_PATTERNS[shape] },
    },
    WebhookEndpointId: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'A webhook endpoint id. A malformed id is `400 invalid_request`; one of another merchant or mode, or deleted, is `404 object_not_found`.',
      schema: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
    },
    PayoutId: {
      name: 'payout_id',
      in: 'path',
      required: true,
      description: 'A Payout id. A malformed id is `400 invalid_request`; one of another merchant or mode is `404 object_not_found`.',
      schema: { type: 'string', pattern: '^po_[A-Za-z0-9]{24}$' },
    },
    EventId: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'An event id. A malformed id is `400 invalid_request`; one of another merchant or mode is `404 object_not_found`.',
      schema: { type: 'string', pattern: '^evt_[A-Za-z0-9]{24}$' },
    },
  };
  return {
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: 'Makes the create safe to retry: the same key with the same request replays the saved 2xx answer (header '
        + '`Idempotent-Replayed: true`); with a different request it is `409 idempotency_key_reused`; while the first request runs, '
        + '`409 idempotency_key_in_use`. Scoped to the API key and operation. Missing: `400 parameter_missing`; over 255 characters: '
        + '`400 parameter_invalid`. A random UUIDv4 per one-shot request is a good key.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
    },
    ServiceVersion: {
      name: 'Service-Version',
      in: 'header',
      required: false,
      description: `The API version this document describes. Send it on every request to pin the version your code was written for; `
        + 'without it the account\'s default version applies, which may be another. Other versions have their own document '
        + '(`/openapi.json?version=...`). A malformed or unknown value is `400 parameter_invalid`.',
      schema: { type: 'string', enum: [version] },
    },
    ...ids,
  };
}

const HEADERS: Record<string, HeaderObject> = {
  RequestId: {
    description: 'Identifies the request; equals `error.request_id` on errors. Quote it to support.',
    required: true,
    schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
  },
  IdempotentReplayed: {
    description: '`true` when this is the saved answer to an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying with the same `Idempotency-Key`, when known.',
    schema: { type: 'integer', minimum: 0 },
  },
};

const serviceVersionHeader = (required: boolean): HeaderObject => ({
  description: 'The version that answered. Absent on answers given before the version is known (authentication, a bad `Service-Version`).',
  required,
  schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', enum: [...KNOWN_VERSIONS] },
});

function responseHeaders(operation: Operation, status: number): Record<string, HeaderObject | Reference> {
  const success = status < 400;
  return {
    'Request-Id': headerRef('RequestId'),
    ...(operation.authenticated ? { 'Service-Version': serviceVersionHeader(success) } : {}),
    ...(operation.create && success ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
    ...(status === 429 || status === 503 ? { 'Retry-After': headerRef('RetryAfter') } : {}),
  };
}

function examples(names: readonly string[] = []): Record<string, ExampleObject> | undefined {
  return names.length ? Object.fromEntries(names.map((name) => [name, example(name)])) : undefined;
}

function mediaType(schema: JsonSchema, exampleObjects?: Record<string, ExampleObject>): MediaTypeObject {
  return { schema, ...(exampleObjects ? { examples: exampleObjects } : {}) };
}

function successResponse(operation: Operation, response: SuccessResponse, shape: Shape): ResponseObject {
  const headers = responseHeaders(operation, response.status);
  if (response.mediaType) {
    return { description: response.description, headers, content: { [response.mediaType]: { schema: { type: 'string' } } } };
  }
  const body: JsonBody | undefined = response.json?.[shape];
  if (!body) throw new Error(`${operation.id} ${response.status}: no JSON body in Shape ${shape}`);
  return {
    description: response.description,
    headers,
    content: { 'application/json': mediaType(schemaRef(body.component), examples(body.examples)) },
  };
}

/**
 * The error responses of an operation speaking `shape`. `code` is not narrowed to the operation's
 * codes: new codes may appear, so the operation's known codes are listed in the description and
 * `x-error-codes` instead.
 */
function errorResponses(operation: Operation, shape: Shape): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(operation, shape)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const envelope = shape === 'A' ? 'Error' : 'ErrorB';
  const responses: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    responses[String(status)] = {
      description: `Error. \`error.code\` is one of: ${codes.map((code) => `\`${code}\``).join(', ')}; new codes may appear.`,
      headers: responseHeaders(operation, status),
      content: { 'application/json': mediaType(schemaRef(envelope), { [`shape${shape}`]: errorExample(codes[0]!, shape) }) },
      'x-error-codes': codes,
    };
  }
  return responses;
}

function requestBody(operation: Operation, shape: Shape): OperationObject['requestBody'] {
  const body = operation.requestBody?.[shape];
  if (!body) return undefined;
  return {
    required: !operation.requestBodyOptional,
    description: 'No other properties are accepted, at any depth.',
    content: { 'application/json': mediaType(schemaRef(body.component), examples(body.examples)) },
  };
}

function operationParameters(operation: Operation, shape: Shape): Array<ParameterObject | Reference> {
  const query = operation.query?.[shape];
  return [
    ...(operation.pathParameter ? [parameterRef(operation.pathParameter)] : []),
    ...(query ? queryParameters(query) : []),
    ...(operation.create ? [parameterRef('IdempotencyKey')] : []),
    ...(operation.authenticated ? [parameterRef('ServiceVersion')] : []),
  ];
}

function operationObject(operation: Operation, documentShape: Shape): OperationObject {
  const shape = spokenShape(operation, documentShape);
  const successes = Object.fromEntries(operation.responses.map((response) => [String(response.status), successResponse(operation, response, shape)]));
  const params = operationParameters(operation, shape);
  const body = requestBody(operation, shape);
  return {
    operationId: operation.id,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description,
    ...(operation.authenticated ? {} : { security: [] }),
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...successes, ...errorResponses(operation, shape) },
    ...(operation.shapeBCallback && shape === 'B' ? { callbacks: shapeBCallbacks() } : {}),
    'x-shapes': operation.shapes.length ? [shape] : [],
  };
}

/** The request body components of the operations a document describes, generated from their joi schemas. */
function requestSchemas(operations: readonly Operation[], shape: Shape): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const operation of operations) {
    const body = operation.requestBody?.[spokenShape(operation, shape)];
    if (body) schemas[body.component] = joiToJsonSchema(body.schema);
  }
  return schemas;
}

/** Every `$ref` string anywhere in a value. */
function refsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.add(child);
      else refsIn(child, found);
    }
  }
  return found;
}

/** The schemas reachable from `roots`, in the order of `candidates`: a document holds only what it uses. */
function reachable(candidates: Record<string, JsonSchema>, roots: unknown): Record<string, JsonSchema> {
  const used = new Set<string>();
  const pending = [...refsIn(roots)];
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    const name = refName(ref);
    if (!ref.startsWith('#/components/schemas/') || used.has(name)) continue;
    const schema = candidates[name];
    if (!schema) throw new Error(`OpenAPI: no component schema ${name}`);
    used.add(name);
    pending.push(...refsIn(schema));
  }
  return Object.fromEntries(Object.entries(candidates).filter(([name]) => used.has(name)));
}
function overview(version: ApiVersion): string {
  const shape = shapeOf(version);
  const other = KNOWN_VERSIONS.filter((candidate) => candidate !== version).map((candidate) => `\`${candidate}\``).join(', ');
  return [
    'Merchant-facing card payments, refunds and payouts. JSON over HTTPS; every path is under `/v1`.',
    '',
    '**Authentication.** `Authorization: Bearer <secret API key>`: `svc_test_sk_...` (test mode, sandbox provider, test cards) or '
      + '`svc_live_sk_...`. Objects are scoped to the merchant and mode of the key.',
    '',
    `**This document describes \`Service-Version: ${version}\`** (${shape === 'A'
      ? 'Shape A, the current version: uppercase statuses, `merchant_reference`, `return_url`, `POST /v1/refunds`'
      : 'Shape B, an older version: lowercase statuses, `redirect_url`, `decline_code`, `POST /v1/payments/{id}/refund`; refunds, '
        + 'payouts, events and webhook endpoints exist in the current shape only and are described as they are'}). `
      + `\`/openapi.json?version=\` gives the document of another version (${other}). Send the header on every request: without it the `
      + 'account\'s default version applies. Every answer carries `Service-Version` once the version is known.',
    '',
    '**Money.** Amounts are integers in the currency\'s minor units (ISO 4217 exponent): never assume two decimals.',
    '',
    '**Idempotency.** Every create needs an `Idempotency-Key`; only 2xx answers are saved and replayed. A `201` can carry a `FAILED` '
      + 'object: that is an outcome, not an HTTP error.',
    '',
    '**Compatibility.** Fields may be added to any response object, and new error codes, failure codes and event types may appear, '
      + 'without a new version: ignore fields you do not know (the response schemas do not forbid other properties). Request '
      + 'bodies accept exactly the fields described.',
    '',
    '**Errors.** Branch on the HTTP status first, then on `error.code` (see the catalogue); the schemas list the known codes and accept '
      + 'any string. Errors answered before the version is known (`401`, the per-key rate limit, a bad `Service-Version`) use the Shape A '
      + 'envelope. A method and path that match no operation give `404 resource_not_found`. Retry 429 and 5xx with backoff and the same '
      + '`Idempotency-Key`.',
    '',
    '**Events.** Every status change of a Payment, Refund or Payout is POSTed to each of the merchant\'s webhook endpoints that takes its '
      + 'type (`/v1/webhook_endpoints`; see `webhooks`), signed per Standard Webhooks with that endpoint\'s secret, at least once and in any '
      + 'order. The endpoint\'s `api_version` chooses the shape of a Payment in its events. Answer 2xx to event types you do not handle: '
      + 'new ones may appear.',
  ].join('\n');
}

/** The document of `version` for a service reached at `publicBaseUrl` (its only `servers` entry). */
export function buildOpenApiDocument(publicBaseUrl: string, version: ApiVersion = DEFAULT_VERSION): OpenApiDocument {
  const shape = shapeOf(version);
  const described = OPERATIONS.filter((operation) => describedIn(operation, shape));
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of described) {
    (paths[operation.path] ??= {})[operation.method] = operationObject(operation, shape);
  }
  const hooks = webhooks(shape);
  const candidates = { ...requestSchemas(described, shape), ...responseSchemas(), ...eventSchemas(shape), ...eventApiSchemas() };
  return {
    openapi: '3.1.0',
    info: { title: 'Card Payments Service API', version, description: overview(version) },
    servers: [{ url: publicBaseUrl, description: 'This service, at its configured public base URL (`PUBLIC_BASE_URL`).' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: hooks,
    components: {
      schemas: reachable(candidates, { paths, hooks }),
      parameters: parameters(version),
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A secret API key, sent only from the merchant server. Missing, malformed, invalid, expired or revoked: `401 invalid_api_key`.',
        },
      },
    },
  };
}

const cached = new Map<string, OpenApiDocument>();

/**
 * The document of a version (by default the current one) for a public base URL (by default the
 * configured one: `http://localhost:3000` unless `PUBLIC_BASE_URL` or `PORT` say otherwise), built on
 * first use and then shared.
 */
export function openApiDocument(publicBaseUrl: string = loadConfig().publicBaseUrl, version: ApiVersion = DEFAULT_VERSION): OpenApiDocument {
  const key = `${version} ${publicBaseUrl}`;
  let document = cached.get(key);
  if (!document) {
    document = buildOpenApiDocument(publicBaseUrl, version);
    cached.set(key, document);
  }
  return document;
}
