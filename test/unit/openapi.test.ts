// The OpenAPI document: structurally valid OpenAPI 3.1, every schema compiles in ajv (strict), every
// example matches what it illustrates, it lists exactly the router's routes, its request schemas
// are what joi-to-json makes of the joi schemas the API validates with, and error lists agree with
// the catalogue. What standard tools need: a server, bodies a validating proxy accepts whatever the
// shape, codes that may grow, and the webhooks.
import { createApp } from '../../src/api/app';
import type { Deps } from '../../src/services/context';
import { buildOpenApiDocument, openApiDocument } from '../../src/api/openapi/document';
import { ERROR_SCOPES, errorCodesFor } from '../../src/api/openapi/error-scopes';
import { OPERATIONS, UNDOCUMENTED_ROUTES } from '../../src/api/openapi/operations';
import { JOI_SOURCES, joiToJsonSchema } from '../../src/api/openapi/request-schemas';
import { EXAMPLES } from '../../src/api/openapi/examples';
import { openEnumValues, type JsonSchema, type OperationObject, type ParameterObject } from '../../src/api/openapi/types';
import { KNOWN_VERSIONS, SHAPE_B_VERSION } from '../../src/representations/versions';
import { loadConfig } from '../../src/config';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors';
import { FAILURE_CODES } from '../../src/domain/failure-codes';
import { EVENT_TYPES } from '../../src/domain/events';
import { OpenApiValidator, pointer } from '../helpers/openapi';

const document = openApiDocument();
const validator = new OpenApiValidator(document);
const operations: Array<{ path: string; method: string; operation: OperationObject }> = Object.entries(document.paths)
  .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
const webhookOperations = Object.entries(document.webhooks).map(([type, { post }]) => ({ type, operation: post }));

/** Every `$ref` string anywhere in a value, with where it was found. */
function collectRefs(value: unknown, at: string, found: Array<{ ref: string; at: string }> = []): Array<{ ref: string; at: string }> {
  if (Array.isArray(value)) value.forEach((item, index) => collectRefs(item, `${at}/${index}`, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push({ ref: child, at });
      else collectRefs(child, `${at}/${key}`, found);
    }
  }
  return found;
}

function resolvePointer(ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref.slice(2).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), document);
}

/** A schema without the descriptions laid over the joi output. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'description').map(([key, child]) => [key, withoutDescriptions(child)]));
}

describe('structure', () => {
  it('is OpenAPI 3.1 with info, tags, security and paths', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBeTruthy();
    expect(document.info.version).toBeTruthy();
    expect(Object.keys(document.components.securitySchemes)).toEqual(['bearerAuth']);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const path of Object.keys(document.paths)) expect(path).toMatch(/^\/[a-z0-9/{}_.-]*$/);
  });

  it('is deterministic and survives a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument(document.servers[0]!.url)))).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('resolves every $ref', () => {
    const refs = collectRefs(document, '#');
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter(({ ref }) => resolvePointer(ref) === undefined);
    expect(broken).toEqual([]);
  });

  it('uses every component', () => {
    const used = new Set(collectRefs({ paths: document.paths, webhooks: document.webhooks, schemas: document.components.schemas }, '#').map(({ ref }) => ref));
    const unused = [
      ...Object.keys(document.components.schemas).map((name) => `#/components/schemas/${name}`),
      ...Object.keys(document.components.parameters).map((name) => `#/components/parameters/${name}`),
      ...Object.keys(document.components.headers).map((name) => `#/components/headers/${name}`),
    ].filter((ref) => !used.has(ref));
    expect(unused).toEqual([]);
  });

  it('gives every operation a unique id, a known tag, responses and its path parameters', () => {
    const callbackOperations = operations.flatMap(({ operation }) => Object.values(operation.callbacks ?? {}).flatMap((byUrl) => Object.values(byUrl).map(({ post }) => ({ operation: post }))));
    const ids = [...operations, ...webhookOperations, ...callbackOperations].map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = document.tags.map((tag) => tag.name);
    for (const { path, operation } of operations) {
      expect(tags).toContain(operation.tags[0]);
      expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
      for (const status of Object.keys(operation.responses)) expect(status).toMatch(/^[1-5]\d\d$/);
      const declared = (operation.parameters ?? [])
        .map((parameter) => ('$ref' in parameter ? resolvePointer(parameter.$ref) as ParameterObject : parameter))
        .filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect({ path, declared }).toEqual({ path, declared: templated });
    }
  });

  it('compiles every schema in ajv with strict mode', () => {
    expect(validator.compileAll()).toBeGreaterThan(60);
  });

  it('documents Service-Version with every known version and the date pattern', () => {
    const schema = document.components.parameters.ServiceVersion!.schema;
    expect(schema.enum).toEqual([...KNOWN_VERSIONS]);
    for (const version of KNOWN_VERSIONS) expect(version).toMatch(new RegExp(schema.pattern!));
  });
});

describe('examples', () => {
  const cases: Array<[string, string, unknown]> = [];
  for (const { path, method, operation } of operations) {
    for (const [name, example] of Object.entries(operation.requestBody?.content['application/json']?.examples ?? {})) {
      cases.push([`${method} ${path} request ${name}`, pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'), example.value]);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [name, example] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
        cases.push([`${method} ${path} ${status} ${name}`, pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema'), example.value]);
      }
    }
  }

  for (const { type, operation } of webhookOperations) {
    for (const [name, example] of Object.entries(operation.requestBody?.content['application/json']?.examples ?? {})) {
      cases.push([`webhook ${type} ${name}`, pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'), example.value]);
    }
  }
  for (const { path, method, operation } of operations) {
    for (const [callback, byUrl] of Object.entries(operation.callbacks ?? {})) {
      for (const [url, { post }] of Object.entries(byUrl)) {
        for (const [name, example] of Object.entries(post.requestBody?.content['application/json']?.examples ?? {})) {
          cases.push([`${method} ${path} callback ${callback} ${name}`, pointer('paths', path, method, 'callbacks', callback, url, 'post', 'requestBody', 'content', 'application/json', 'schema'), example.value]);
        }
      }
    }
  }

  it('covers every create request and the key response states', () => {
    for (const operation of OPERATIONS.filter((candidate) => candidate.requestBody)) {
      expect({ id: operation.id, examples: operation.requestExamples?.length ?? 0 }).toEqual({ id: operation.id, examples: expect.any(Number) });
      expect(operation.requestExamples!.length).toBeGreaterThanOrEqual(Object.keys(operation.requestBody!).length);
    }
    const values = cases.map(([, , value]) => value as { status?: string; next_action?: unknown; error?: unknown });
    for (const status of ['PROCESSING', 'REQUIRES_ACTION', 'FAILED', 'PENDING']) expect(values.some((value) => value.status === status)).toBe(true);
    expect(values.some((value) => value.error !== undefined)).toBe(true);
  });

  it.each(cases)('%s matches its schema', (_label, ref, value) => {
    const validate = validator.validatorAt(ref);
    expect({ valid: validate(value), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });
});

describe('drift', () => {
  it('request components are exactly what joi-to-json makes of the joi schemas, plus descriptions', () => {
    for (const [name, joi] of Object.entries(JOI_SOURCES)) {
      if (!document.components.schemas[name]) continue;
      expect({ name, schema: withoutDescriptions(document.components.schemas[name]) }).toEqual({ name, schema: withoutDescriptions(joiToJsonSchema(joi)) });
    }
  });

  it('character limits (a custom rule joi-to-json cannot see) are stated as maxLength', () => {
    const schemas = document.components.schemas as Record<string, JsonSchema>;
    expect(schemas.RefundRequest!.properties!.reason!.maxLength).toBe(50);
    expect(schemas.DirectPaymentRequest!.properties!.description!.maxLength).toBe(500);
    expect(schemas.DirectPaymentRequest!.properties!.payment_method_data!.properties!.card!.properties!.holder_name!.maxLength).toBe(255);
    expect(JSON.stringify(document)).not.toContain('x-max-characters');
  });

  it('list query parameters are the keys of the joi query schemas, with the same schemas', () => {
    for (const operation of OPERATIONS.filter((candidate) => candidate.query)) {
      const documented = (document.paths[operation.path]![operation.method]!.parameters ?? [])
        .filter((parameter): parameter is ParameterObject => !('$ref' in parameter) && parameter.in === 'query');
      const generated = joiToJsonSchema(JOI_SOURCES[operation.query!]!);
      expect(Object.fromEntries(documented.map((parameter) => [parameter.name, parameter.schema])))
        .toEqual(withoutDescriptions(generated.properties));
      for (const parameter of documented) expect({ name: parameter.name, described: parameter.description.length > 0 }).toEqual({ name: parameter.name, described: true });
    }
  });

  it('the Idempotency-Key bound is the one the middleware enforces', () => {
    expect(document.components.parameters.IdempotencyKey!.schema.maxLength).toBe(255);
  });
});

describe('routes', () => {
  const routerRoutes = (() => {
    const app = createApp({ config: loadConfig() } as Deps);
    const dispatch = app.middleware.find((middleware) => (middleware as { router?: unknown }).router) as unknown as
      { router: { stack: Array<{ path: string; methods: string[] }> } };
    return dispatch.router.stack.flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD')
      .map((method) => `${method} ${layer.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`));
  })();

  it('every route the router serves is documented, or listed as not part of the merchant API', () => {
    const documented = new Set(OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`));
    const missing = routerRoutes.filter((route) => !documented.has(route) && !(route in UNDOCUMENTED_ROUTES));
    expect(missing).toEqual([]);
    for (const route of Object.keys(UNDOCUMENTED_ROUTES)) expect(routerRoutes).toContain(route);
  });

  it('operations marked served are routed, and the others are not (flip `served` when they are)', () => {
    for (const operation of OPERATIONS) {
      const route = `${operation.method.toUpperCase()} ${operation.path}`;
      expect({ route, routed: routerRoutes.includes(route) }).toEqual({ route, routed: operation.served });
    }
  });

  it('the document has exactly the operations of the table', () => {
    expect(operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort())
      .toEqual(OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`).sort());
  });
});

describe('errors', () => {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

  it('every error response lists codes of its own HTTP status, and only codes of the operation', () => {
    for (const { path, method, operation } of operations) {
      const spec = OPERATIONS.find((candidate) => candidate.id === operation.operationId)!;
      const allowed = new Set(spec.shapes.flatMap((shape) => errorCodesFor(spec, shape)));
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const code of response['x-error-codes'] ?? []) {
          expect({ path, method, code, status: ERROR_CATALOGUE[code as ErrorCode].status }).toEqual({ path, method, code, status: Number(status) });
          expect(allowed.has(code as ErrorCode)).toBe(true);
        }
      }
    }
  });

  it('every catalogue code but resource_not_found is answered by some operation', () => {
    const answered = new Set(operations.flatMap(({ operation }) => Object.values(operation.responses).flatMap((response) => response['x-error-codes'] ?? [])));
    expect(codes.filter((code) => !answered.has(code))).toEqual(['resource_not_found']);
    expect(ERROR_SCOPES.resource_not_found).toEqual([]);
  });

  it('authenticated operations document 401, 400 and 500; creates 409 with both idempotency codes', () => {
    for (const spec of OPERATIONS.filter((candidate) => candidate.authenticated)) {
      const responses = document.paths[spec.path]![spec.method]!.responses;
      expect({ id: spec.id, statuses: ['400', '401', '500', '503'].filter((status) => !responses[status]) }).toEqual({ id: spec.id, statuses: [] });
      expect(responses['401']!['x-error-codes']).toEqual(['invalid_api_key']);
      if (spec.create) expect(responses['409']!['x-error-codes']).toEqual(expect.arrayContaining(['idempotency_key_in_use', 'idempotency_key_reused']));
    }
  });

  it('catalogue examples: payouts and payments answer their specific codes', () => {
    const codesOf = (path: string, method: string, status: string) => document.paths[path]![method]!.responses[status]!['x-error-codes'];
    expect(codesOf('/v1/payouts', 'post', '422')).toEqual(['currency_not_supported', 'invalid_card', 'merchant_not_provisioned', 'unsupported_card']);
    expect(codesOf('/v1/payments', 'post', '429')).toEqual(['rate_limit_exceeded']);
    expect(codesOf('/v1/payouts/{payout_id}', 'get', '429')).toEqual(['rate_limit_exceeded']);
    expect(codesOf('/v1/payments', 'post', '402')).toEqual(['card_declined']);
    expect(codesOf('/v1/refunds', 'post', '403')).toEqual(['actor_forbidden']);
    expect(codesOf('/v1/payments', 'get', '400')).toEqual(['invalid_request', 'invalid_search_criteria', 'parameter_invalid']);
    expect(document.paths['/v1/health']!.get!.responses['401']).toBeUndefined();
  });

  it('both envelopes list the catalogue as known codes; Shape B-only codes stay out of Shape A', () => {
    const codeEnum = (name: string) => openEnumValues(document.components.schemas[name]!.properties!.error!.properties!.code as JsonSchema);
    expect(codeEnum('ErrorB')).toEqual(codes);
    expect(codeEnum('Error')).toEqual(codes.filter((code) => code !== 'card_declined' && code !== 'charge_already_refunded'));
    expect(document.components.schemas.Error!.properties!.error!.properties!.request_id!.pattern).toBe('^req_[A-Za-z0-9]{24}$');
  });
});

describe('what standard tools need', () => {
  /** Standard JSON Schema semantics (`oneOf`: exactly one), as a validating proxy checks a body. */
  const valid = (ref: string, value: unknown) => {
    const validate = validator.validatorAt(ref);
    return { valid: validate(value), errors: validate.errors ?? null };
  };
  const responseSchema = (path: string, method: string, status: string) => pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema');

  it('names one server: the public base URL it is built for, by default the configured one', () => {
    expect(openApiDocument('https://payments.shop.test').servers).toEqual([{ url: 'https://payments.shop.test', description: expect.any(String) }]);
    expect(document.servers.map((server) => server.url)).toEqual([loadConfig().publicBaseUrl]);
    expect(document.servers[0]!.url).not.toMatch(/\/$/);
  });

  it('GET /v1/payments 200 accepts an empty page of either shape, and non-empty pages of each', () => {
    const ref = responseSchema('/v1/payments', 'get', '200');
    const emptyPage = { object: 'list', data: [], has_more: false, url: '/v1/payments' };
    expect(valid(ref, emptyPage)).toEqual({ valid: true, errors: null });
    const pageA = EXAMPLES.paymentList!.value as { data: unknown[] };
    expect(valid(ref, pageA)).toEqual({ valid: true, errors: null });
    expect(valid(ref, { ...emptyPage, data: [EXAMPLES.paymentSucceededB!.value] })).toEqual({ valid: true, errors: null });
    expect(valid(ref, { ...emptyPage, data: [{ id: 'pay_x' }] }).valid).toBe(false);
    // The exact schema per version still tells the shapes apart.
    const byVersion = (version: string) => pointer('paths', '/v1/payments', 'get', 'responses', '200', 'x-schema-by-service-version', version);
    expect(valid(byVersion(SHAPE_B_VERSION), pageA).valid).toBe(false);
  });

  it('no body offers its shapes as oneOf: the version, not the body, picks the shape', () => {
    const bodies = operations.flatMap(({ path, method, operation }) => [
      ...(operation.requestBody ? [{ at: `${method} ${path} request`, schema: operation.requestBody.content['application/json']!.schema }] : []),
      ...Object.entries(operation.responses).flatMap(([status, response]) => Object.values(response.content ?? {}).map((media) => ({ at: `${method} ${path} ${status}`, schema: media.schema }))),
    ]);
    expect(bodies.filter(({ schema }) => schema.oneOf).map(({ at }) => at)).toEqual([]);
  });

  it('error codes and failure codes list the known values and accept a code added later', () => {
    const later = 'code_added_later';
    const errorA = { error: { code: later, message: 'm', request_id: 'req_4mT8qZ2xK9pL3vR7wB5nC1dF' } };
    expect(valid(pointer('components', 'schemas', 'Error'), errorA)).toEqual({ valid: true, errors: null });
    expect(valid(responseSchema('/v1/refunds', 'post', '422'), errorA)).toEqual({ valid: true, errors: null });
    const errorB = { error: { type: 'card_error', code: later, message: 'm', param: null, decline_code: later, doc_url: 'https://x.test/docs#error-x', request_id: 'req_4mT8qZ2xK9pL3vR7wB5nC1dF' } };
    expect(valid(responseSchema('/v1/payments', 'post', '402'), errorB)).toEqual({ valid: true, errors: null });

    const failed = (name: string) => EXAMPLES[name]!.value as Record<string, any>;
    expect(valid(pointer('components', 'schemas', 'Payment'), { ...failed('paymentFailed'), failure_code: later })).toEqual({ valid: true, errors: null });
    expect(valid(pointer('components', 'schemas', 'Payout'), { ...failed('payoutFailed'), failure_code: later })).toEqual({ valid: true, errors: null });
    const refund = failed('refundFailed');
    expect(valid(pointer('components', 'schemas', 'Refund'), { ...refund, failure: { ...refund.failure, code: later } })).toEqual({ valid: true, errors: null });
    // Still a string, and still null only where null is allowed.
    expect(valid(pointer('components', 'schemas', 'Payout'), { ...failed('payoutFailed'), failure_code: 42 }).valid).toBe(false);
    expect(valid(pointer('components', 'schemas', 'Payout'), { ...failed('payoutFailed'), failure_code: null }).valid).toBe(false);

    const schemas = document.components.schemas;
    expect(openEnumValues(schemas.Payment!.properties!.failure_code!)).toEqual([...FAILURE_CODES]);
    expect(openEnumValues(schemas.Payout!.properties!.failure_code!)).toEqual([...FAILURE_CODES]);
    expect(openEnumValues(schemas.Refund!.properties!.failure!.properties!.code!)).toEqual([...FAILURE_CODES]);
  });

  it('has a webhook for every event type the service raises, with the signature headers and the event envelope', () => {
    expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
    for (const { type, operation } of webhookOperations) {
      const headers = (operation.parameters ?? []).map((parameter) => ('$ref' in parameter ? document.components.parameters[parameter.$ref.split('/').pop()!]! : parameter))
        .map((parameter) => `${parameter.in} ${parameter.name}${parameter.required ? ' required' : ''}`);
      expect({ type, headers }).toEqual({ type, headers: ['header webhook-id required', 'header webhook-timestamp required', 'header webhook-signature required'] });
      expect({ type, security: operation.security }).toEqual({ type, security: [] });
      expect(Object.keys(operation.responses)).toEqual(['2XX', 'default']);
      const object = type.split('.')[0]!;
      const snapshot = { payment: 'paymentProcessing', refund: 'refundProcessing', payout: 'payoutPending' }[object]!;
      const body = (eventType: string) => ({ id: 'evt_0123456789abcdef01234567', type: eventType, created_at: 1767225600, livemode: false, data: { object: EXAMPLES[snapshot]!.value } });
      const ref = pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema');
      expect({ type, ...valid(ref, body(type)) }).toEqual({ type, valid: true, errors: null });
      const other = EVENT_TYPES.find((candidate) => candidate !== type && candidate.startsWith(`${object}.`))!;
      expect({ type, other, valid: valid(ref, body(other)).valid }).toEqual({ type, other, valid: false });
    }
  });

  it('POST /v1/payments/hpp documents its Shape B callback: the payment in Shape B to callback_url, signed like the webhooks', () => {
    const withCallbacks = operations.filter(({ operation }) => operation.callbacks).map(({ method, path }) => `${method} ${path}`);
    expect(withCallbacks).toEqual(['post /v1/payments/hpp']);
    const callback = document.paths['/v1/payments/hpp']!.post!.callbacks!.paymentCompletedB!['{$request.body#/callback_url}']!.post;
    expect(callback.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/PaymentB' });
    expect(callback.parameters).toEqual(document.webhooks['payment.succeeded']!.post.parameters);
    expect(document.components.schemas.HostedPaymentRequestB!.properties!.callback_url).toBeDefined();
  });
});
