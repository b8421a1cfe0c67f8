// Builds the OpenAPI 3.1 document of the whole interface from the operation table, the joi-derived
// request schemas, the response schemas, the error scopes and the event types. Pure and
// deterministic for a given public base URL (its `servers`): built once per URL and cached;
// `/openapi.json` and `/docs` both serve this one object.
import { loadConfig } from '../../config';
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../middleware/idempotency-key';
import { KNOWN_VERSIONS, SHAPE_A_VERSION, versionOf, type Shape } from '../../representations/versions';
import { errorCodesFor } from './error-scopes';
import { errorExample, example } from './examples';
import { OPERATIONS, TAGS, type OperationSpec, type SuccessResponse } from './operations';
import { queryParameters, requestBodySchemas } from './request-schemas';
import { REQUEST_ID_PATTERN, responseSchemas } from './response-schemas';
import { shapeBSchemas } from './shape-b';
import {
  schemaRef, type ExampleObject, type HeaderObject, type JsonSchema, type MediaTypeObject, type OpenApiDocument,
  type OperationObject, type ParameterObject, type Reference, type ResponseObject,
} from './types';
import { eventSchemas, shapeBCallbacks, WEBHOOK_PARAMETERS, webhooks } from './webhooks';
import { eventApiSchemas } from './events';

/** `Service-Version: 2025-09-01` → `Payment`; ... for the components of each shape. */
const componentsByVersion = (json: Partial<Record<Shape, string>>): string => (['A', 'B'] as const)
  .filter((shape) => json[shape])
  .map((shape) => `\`Service-Version: ${versionOf(shape)}\` → \`${json[shape]}\``)
  .join('; ');

const parameterRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });
const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

const SERVICE_VERSION_SCHEMA: JsonSchema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', enum: [...KNOWN_VERSIONS] };

const PARAMETERS: Record<string, ParameterObject> = {
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
    description: `The API version, which selects the shape: \`${versionOf('A')}\` Shape A (current), \`${versionOf('B')}\` Shape B (older). `
      + 'Without it the account\'s default version applies. A malformed or unknown value is `400 parameter_invalid`. '
      + 'Operations that exist in one shape only validate it and always answer in their shape.',
    schema: SERVICE_VERSION_SCHEMA,
  },
  PaymentId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'A Payment id. A malformed id is `400 invalid_request`; one of another merchant or mode is `404 object_not_found`.',
    schema: { type: 'string', pattern: '^pay_[A-Za-z0-9]{24}$' },
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
  schema: SERVICE_VERSION_SCHEMA,
});

function responseHeaders(operation: OperationSpec, status: number): Record<string, HeaderObject | Reference> {
  const success = status < 400;
  return {
    'Request-Id': headerRef('RequestId'),
    ...(operation.authenticated ? { 'Service-Version': serviceVersionHeader(success) } : {}),
    ...(operation.create && success ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
    ...(status === 429 || status === 503 ? { 'Retry-After': headerRef('RetryAfter') } : {}),
  };
}

/**
 * One schema for the shapes given: a reference, or `anyOf` them. Not `oneOf`: the request's
 * `Service-Version` picks the shape, not the body, and two shapes' bodies can be the same JSON (an
 * empty list page), which `oneOf` would reject.
 */
function eitherShape(variants: JsonSchema[]): JsonSchema {
  return variants.length === 1 ? variants[0]! : { anyOf: variants };
}

function bySchemaVersion(variants: Partial<Record<Shape, JsonSchema>>): Record<string, JsonSchema> | undefined {
  const entries = (['A', 'B'] as const).filter((shape) => variants[shape]).map((shape) => [versionOf(shape), variants[shape]!] as const);
  return entries.length > 1 ? Object.fromEntries(entries) : undefined;
}

function examples(names: readonly string[] = []): Record<string, ExampleObject> | undefined {
  return names.length ? Object.fromEntries(names.map((name) => [name, example(name)])) : undefined;
}

function mediaType(schema: JsonSchema, exampleObjects?: Record<string, ExampleObject>): MediaTypeObject {
  return { schema, ...(exampleObjects ? { examples: exampleObjects } : {}) };
}

function successResponse(operation: OperationSpec, response: SuccessResponse): ResponseObject {
  const headers = responseHeaders(operation, response.status);
  if (response.mediaType) {
    return { description: response.description, headers, content: { [response.mediaType]: { schema: { type: 'string' } } } };
  }
  const json = response.json ?? {};
  const variants: Partial<Record<Shape, JsonSchema>> = {};
  for (const shape of ['A', 'B'] as const) if (json[shape]) variants[shape] = schemaRef(json[shape]!);
  const byVersion = bySchemaVersion(variants);
  return {
    description: byVersion ? `${response.description} Shape by version: ${componentsByVersion(json)}.` : response.description,
    headers,
    content: { 'application/json': mediaType(eitherShape(Object.values(variants)), examples(response.examples)) },
    ...(byVersion ? { 'x-schema-by-service-version': byVersion } : {}),
  };
}

/**
 * The envelope of one shape. `code` is not narrowed to the operation's codes: new codes may appear,
 * so the operation's known codes are listed in the description and `x-error-codes` instead.
 */
const errorEnvelope = (shape: Shape): JsonSchema => schemaRef(shape === 'A' ? 'Error' : 'ErrorB');

function errorResponses(operation: OperationSpec): Record<string, ResponseObject> {
  const byStatus = new Map<number, Partial<Record<Shape, ErrorCode[]>>>();
  for (const shape of operation.shapes) {
    for (const code of errorCodesFor(operation, shape)) {
      const status = ERROR_CATALOGUE[code].status;
      const entry = byStatus.get(status) ?? {};
      (entry[shape] ??= []).push(code);
      byStatus.set(status, entry);
    }
  }
  const responses: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codesByShape = byStatus.get(status)!;
    const shapes = (['A', 'B'] as const).filter((shape) => codesByShape[shape]?.length);
    const variants: Partial<Record<Shape, JsonSchema>> = {};
    for (const shape of shapes) variants[shape] = errorEnvelope(shape);
    const allCodes = [...new Set(shapes.flatMap((shape) => codesByShape[shape]!))];
    const errorExamples = Object.fromEntries(shapes.map((shape) => [`shape${shape}`, errorExample(codesByShape[shape]![0]!, shape)]));
    const byVersion = bySchemaVersion(variants);
    const shapeNote = shapes.length === 2 ? ' Envelope by version: `Error` (Shape A) or `ErrorB` (Shape B).'
      : shapes[0] === 'B' && operation.shapes.length === 2 ? ' Shape B only.' : '';
    responses[String(status)] = {
      description: `Error. \`error.code\` is one of: ${allCodes.map((code) => `\`${code}\``).join(', ')}; new codes may appear.${shapeNote}`,
      headers: responseHeaders(operation, status),
      content: { 'application/json': mediaType(eitherShape(Object.values(variants)), errorExamples) },
      ...(byVersion ? { 'x-schema-by-service-version': byVersion } : {}),
      'x-error-codes': allCodes,
    };
  }
  return responses;
}

function requestBody(operation: OperationSpec): OperationObject['requestBody'] {
  if (!operation.requestBody) return undefined;
  const components = operation.requestBody;
  const variants = (['A', 'B'] as const).filter((shape) => components[shape]).map((shape) => schemaRef(components[shape]!));
  return {
    required: !operation.requestBodyOptional,
    description: variants.length > 1 ? `By version: ${componentsByVersion(components)}. No other properties are accepted, at any depth.`
      : 'No other properties are accepted, at any depth.',
    content: { 'application/json': mediaType(eitherShape(variants), examples(operation.requestExamples)) },
  };
}

function parameters(operation: OperationSpec): Array<ParameterObject | Reference> {
  return [
    ...(operation.pathParameter ? [parameterRef(operation.pathParameter)] : []),
    ...(operation.query ? queryParameters(operation.query) : []),
    ...(operation.create ? [parameterRef('IdempotencyKey')] : []),
    ...(operation.authenticated ? [parameterRef('ServiceVersion')] : []),
  ];
}

function operationObject(operation: OperationSpec): OperationObject {
  const notServed = operation.served ? '' : ' **Not served by this version of the service yet** (it answers `404 resource_not_found`).';
  const successes = Object.fromEntries(operation.responses.map((response) => [String(response.status), successResponse(operation, response)]));
  const params = parameters(operation);
  const body = requestBody(operation);
  return {
    operationId: operation.id,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description + notServed,
    ...(operation.authenticated ? {} : { security: [] }),
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...successes, ...errorResponses(operation) },
    ...(operation.shapeBCallback ? { callbacks: shapeBCallbacks() } : {}),
    'x-shapes': [...operation.shapes],
  };
}

const OVERVIEW = [
  'Merchant-facing card payments, refunds and payouts. JSON over HTTPS; every path is under `/v1`.',
  '',
  '**Authentication.** `Authorization: Bearer <secret API key>`: `svc_test_sk_...` (test mode, sandbox provider, test cards) or '
    + '`svc_live_sk_...`. Objects are scoped to the merchant and mode of the key.',
  '',
  `**Versions and shapes.** \`Service-Version: ${versionOf('A')}\` speaks Shape A (uppercase statuses, \`merchant_reference\`, \`return_url\`, `
    + `\`POST /v1/refunds\`); \`${versionOf('B')}\` speaks Shape B (lowercase statuses, \`redirect_url\`, \`decline_code\`, `
    + '`POST /v1/payments/{id}/refund`). Without the header the account\'s default version applies. Payments operations speak both; '
    + 'Refund and Payout operations speak the one shape they are defined in. Every answer carries `Service-Version` once the version is known.',
  '',
  '**Money.** Amounts are integers in the currency\'s minor units (ISO 4217 exponent): never assume two decimals.',
  '',
  '**Idempotency.** Every create needs an `Idempotency-Key`; only 2xx answers are saved and replayed. A `201` can carry a `FAILED` '
    + 'object: that is an outcome, not an HTTP error.',
  '',
  '**Errors.** Branch on the HTTP status first, then on `error.code` (see the catalogue); new codes may appear, and so may new operation '
    + 'failure codes (`failure_code`): the schemas list the known values and accept any string. Errors answered before '
    + 'the version is known (`401`, a bad `Service-Version`) use the Shape A envelope. A method and path that match no operation '
    + 'give `404 resource_not_found`. Retry 429 and 5xx with backoff and the same `Idempotency-Key`.',
  '',
  '**Events.** Every status change of a Payment, Refund or Payout is POSTed to each of the merchant\'s webhook endpoints that takes its '
    + 'type (`/v1/webhook_endpoints`; see `webhooks`), signed per Standard Webhooks with that endpoint\'s secret, at least once and in any '
    + 'order. Answer 2xx to event types you do not handle: new ones may appear.',
].join('\n');

/** The document for a service reached at `publicBaseUrl` (its only `servers` entry). */
export function buildOpenApiDocument(publicBaseUrl: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of OPERATIONS) {
    (paths[operation.path] ??= {})[operation.method] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Card Payments Service API', version: SHAPE_A_VERSION, description: OVERVIEW },
    servers: [{ url: publicBaseUrl, description: 'This service, at its configured public base URL (`PUBLIC_BASE_URL`).' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: webhooks(),
    components: {
      schemas: { ...requestBodySchemas(), ...shapeBSchemas(), ...responseSchemas(), ...eventSchemas(), ...eventApiSchemas() },
      parameters: { ...PARAMETERS, ...WEBHOOK_PARAMETERS },
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
 * The document for a public base URL (by default the configured one: `http://localhost:3000`
 * unless `PUBLIC_BASE_URL` or `PORT` say otherwise), built on first use and then shared.
 */
export function openApiDocument(publicBaseUrl: string = loadConfig().publicBaseUrl): OpenApiDocument {
  let document = cached.get(publicBaseUrl);
  if (!document) {
    document = buildOpenApiDocument(publicBaseUrl);
    cached.set(publicBaseUrl, document);
  }
  return document;
}
