// The OpenAPI documents, one per version: structurally valid OpenAPI 3.1, every schema compiles in
// ajv (strict), every example matches what it illustrates, together they list exactly the router's
// routes, their request schemas are what joi-to-json makes of the joi schemas the API validates
// with, and error lists agree with the catalogue. What standard tools need: one shape per document
// (no union of the two shapes anywhere), repeatable filters as arrays of their enum, response
// objects open to added fields, codes that may grow, a server, and the webhooks.
import { createApp } from '../../src/api/app';
import type { Deps } from '../../src/services/context';
import { buildOpenApiDocument, openApiDocument } from '../../src/api/openapi/document';
import { ERROR_SCOPES, errorCodesFor } from '../../src/api/openapi/error-scopes';
import { OPERATIONS, UNDOCUMENTED_ROUTES } from '../../src/api/operations';
import type { Operation } from '../../src/api/operations/operation';
import { joiToJsonSchema } from '../../src/api/openapi/request-schemas';
import { EXAMPLES } from '../../src/api/openapi/examples';
import { openEnumValues, type JsonSchema, type OpenApiDocument, type OperationObject, type ParameterObject } from '../../src/api/openapi/types';
import { DEFAULT_VERSION, KNOWN_VERSIONS, SHAPE_A_VERSION, SHAPE_B_VERSION, type ApiVersion } from '../../src/representations/versions';
import { loadConfig } from '../../src/config';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors';
import { FAILURE_CODES } from '../../src/domain/failure-codes';
import { EVENT_TYPES } from '../../src/domain/events';
import { PAYMENT_STATUSES } from '../../src/domain/payment';
import { PAYOUT_STATUSES } from '../../src/domain/payout';
import { SHAPE_B_STATUSES } from '../../src/domain/payment-shape-b';
import { OpenApiValidator, pointer } from '../helpers/openapi';

const documents = Object.fromEntries(KNOWN_VERSIONS.map((version) => [version, openApiDocument(undefined, version)])) as Record<ApiVersion, OpenApiDocument>;
const current = documents[SHAPE_A_VERSION];
const older = documents[SHAPE_B_VERSION];
const validators = Object.fromEntries(KNOWN_VERSIONS.map((version) => [version, new OpenApiValidator(documents[version])])) as Record<ApiVersion, OpenApiValidator>;

interface Located { version: ApiVersion; path: string; method: string; operation: OperationObject }
const operationsOf = (version: ApiVersion): Located[] => Object.entries(documents[version].paths)
  .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ version, path, method, operation })));
const allOperations = KNOWN_VERSIONS.flatMap(operationsOf);
const declared = (operation: OperationObject): Operation => OPERATIONS.find((candidate) => candidate.id === operation.operationId)!;

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

function resolvePointer(document: OpenApiDocument, ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref.slice(2).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), document);
}

/** Every schema node of a value (depth first), with its JSON path. */
function schemaNodes(value: unknown, at: string, found: Array<{ node: Record<string, unknown>; at: string }> = []) {
  if (Array.isArray(value)) value.forEach((item, index) => schemaNodes(item, `${at}/${index}`, found));
  else if (value !== null && typeof value === 'object') {
    found.push({ node: value as Record<string, unknown>, at });
    for (const [key, child] of Object.entries(value)) schemaNodes(child, `${at}/${key}`, found);
  }
  return found;
}

describe.each(KNOWN_VERSIONS)('the %s document: structure', (version) => {
  const document = documents[version];
  const operations = operationsOf(version);

  it('is OpenAPI 3.1 with info, tags, security and paths, and says which version it describes', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBeTruthy();
    expect(document.info.version).toBe(version);
    expect(document.info.description).toContain(`Service-Version: ${version}`);
    expect(Object.keys(document.components.securitySchemes)).toEqual(['bearerAuth']);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const path of Object.keys(document.paths)) expect(path).toMatch(/^\/[a-z0-9/{}_.-]*$/);
    expect(document.components.parameters.ServiceVersion!.schema.enum).toEqual([version]);
  });

  it('is deterministic and survives a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument(document.servers[0]!.url, version)))).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('resolves every $ref and uses every component', () => {
    const refs = collectRefs(document, '#');
    expect(refs.length).toBeGreaterThan(50);
    expect(refs.filter(({ ref }) => resolvePointer(document, ref) === undefined)).toEqual([]);
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
    const webhookOperations = Object.values(document.webhooks).map(({ post }) => ({ operation: post }));
    const ids = [...operations, ...webhookOperations, ...callbackOperations].map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = document.tags.map((tag) => tag.name);
    for (const { path, operation } of operations) {
      expect(tags).toContain(operation.tags[0]);
      for (const status of Object.keys(operation.responses)) expect(status).toMatch(/^[1-5]\d\d$/);
      const declaredParameters = (operation.parameters ?? [])
        .map((parameter) => ('$ref' in parameter ? resolvePointer(document, parameter.$ref) as ParameterObject : parameter))
        .filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect({ path, declared: declaredParameters }).toEqual({ path, declared: templated });
    }
  });

  it('compiles every schema in ajv with strict mode', () => {
    expect(validators[version].compileAll()).toBeGreaterThan(60);
  });
});

describe('one shape per document', () => {
  const SHAPE_B_COMPONENTS = /^#\/components\/schemas\/(PaymentB|PaymentListB|CardB|CustomerB|ErrorB|DirectPaymentRequestB|HostedPaymentRequestB)$/;
  const SHAPE_A_PAYMENT_COMPONENTS = /^#\/components\/schemas\/(PaymentList|DirectPaymentRequest|HostedPaymentRequest|Error)$/;

  it('the current document has no Shape B schema, operation or callback anywhere', () => {
    expect(collectRefs(current, '#').filter(({ ref }) => SHAPE_B_COMPONENTS.test(ref))).toEqual([]);
    expect(Object.keys(current.components.schemas).filter((name) => name.endsWith('B'))).toEqual([]);
    expect(current.paths['/v1/payments/{id}/refund']).toBeUndefined();
    expect(operationsOf(SHAPE_A_VERSION).filter(({ operation }) => operation['x-shapes'].includes('B') || operation.callbacks)).toEqual([]);
    expect(current.components.parameters.PaymentId!.schema.pattern).toBe('^pay_[A-Za-z0-9]{24}$');
  });

  it('the older document speaks Shape B on the Payment operations and keeps the Shape A operations as they are', () => {
    for (const { path, method, operation } of operationsOf(SHAPE_B_VERSION)) {
      const spec = declared(operation);
      if (spec.shapes.includes('B')) {
        const payment = collectRefs({ body: operation.requestBody, responses: operation.responses }, '#');
        expect({ path, method, shapeA: payment.filter(({ ref }) => SHAPE_A_PAYMENT_COMPONENTS.test(ref) || ref === '#/components/schemas/Payment').map(({ ref }) => ref) })
          .toEqual({ path, method, shapeA: [] });
        expect(operation['x-shapes']).toEqual(['B']);
      } else {
        // Identical but for the ServiceVersion parameter's enum, which is in the components.
        expect({ path, method, operation }).toEqual({ path, method, operation: current.paths[path]![method] });
      }
    }
    expect(older.paths['/v1/payments/{id}/refund']!.post!.operationId).toBe('refundPaymentB');
    expect(older.paths['/v1/payments/hpp']!.post!.callbacks).toBeDefined();
    expect(older.components.parameters.PaymentId!.schema.pattern).toBe('^pay_[A-Za-z0-9-]+$');
  });

  it('no request or response body, and no webhook body, is a union (anyOf/oneOf) of schemas', () => {
    const bodies = allOperations.flatMap(({ version, path, method, operation }) => [
      ...(operation.requestBody ? [{ at: `${version} ${method} ${path} request`, schema: operation.requestBody.content['application/json']!.schema }] : []),
      ...Object.entries(operation.responses).flatMap(([status, response]) => Object.values(response.content ?? {}).map((media) => ({ at: `${version} ${method} ${path} ${status}`, schema: media.schema }))),
    ]);
    expect(bodies.filter(({ schema }) => schema.oneOf || schema.anyOf || !(schema.$ref || schema.type)).map(({ at }) => at)).toEqual([]);
    for (const version of KNOWN_VERSIONS) {
      const envelopes = ['PaymentEvent', 'RefundEvent', 'PayoutEvent'].map((name) => documents[version].components.schemas[name]!.properties!.data!.properties!.object!);
      expect(envelopes.filter((schema) => !schema.$ref)).toEqual([]);
    }
    // Payment events carry the version's own shape.
    expect(current.components.schemas.PaymentEvent!.properties!.data!.properties!.object!.$ref).toBe('#/components/schemas/Payment');
    expect(older.components.schemas.PaymentEvent!.properties!.data!.properties!.object!.$ref).toBe('#/components/schemas/PaymentB');
  });

  it('errors: the current document answers with Error, the older one with ErrorB on its Shape B operations', () => {
    for (const { version, path, method, operation } of allOperations) {
      const spec = declared(operation);
      const envelope = version === SHAPE_B_VERSION && spec.shapes.includes('B') ? 'ErrorB' : 'Error';
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response['x-error-codes']) continue;
        expect({ version, path, method, status, schema: response.content!['application/json']!.schema }).toEqual({ version, path, method, status, schema: { $ref: `#/components/schemas/${envelope}` } });
      }
    }
  });

  it('ErrorB takes an error answered before the version is known (the Shape A envelope) and a Shape B error', () => {
    const validate = validators[SHAPE_B_VERSION].validatorAt(pointer('components', 'schemas', 'ErrorB'));
    const shapeA = { error: { code: 'invalid_api_key', message: 'm', doc_url: 'https://x.test/docs#error-invalid_api_key', request_id: 'req_4mT8qZ2xK9pL3vR7wB5nC1dF' } };
    expect({ valid: validate(shapeA), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    const shapeB = { error: { ...shapeA.error, type: 'invalid_request_error', param: null } };
    expect({ valid: validate(shapeB), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });
});

describe('examples', () => {
  const cases: Array<[string, ApiVersion, string, unknown]> = [];
  for (const { version, path, method, operation } of allOperations) {
    for (const [name, example] of Object.entries(operation.requestBody?.content['application/json']?.examples ?? {})) {
      cases.push([`${version} ${method} ${path} request ${name}`, version, pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'), example.value]);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [name, example] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
        cases.push([`${version} ${method} ${path} ${status} ${name}`, version, pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema'), example.value]);
      }
    }
    for (const [callback, byUrl] of Object.entries(operation.callbacks ?? {})) {
      for (const [url, { post }] of Object.entries(byUrl)) {
        for (const [name, example] of Object.entries(post.requestBody?.content['application/json']?.examples ?? {})) {
          cases.push([`${version} ${method} ${path} callback ${callback} ${name}`, version, pointer('paths', path, method, 'callbacks', callback, url, 'post', 'requestBody', 'content', 'application/json', 'schema'), example.value]);
        }
      }
    }
  }
  for (const version of KNOWN_VERSIONS) {
    for (const [type, { post }] of Object.entries(documents[version].webhooks)) {
      for (const [name, example] of Object.entries(post.requestBody?.content['application/json']?.examples ?? {})) {
        cases.push([`${version} webhook ${type} ${name}`, version, pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'), example.value]);
      }
    }
  }

  it('cover every request body of each version and the key response states', () => {
    for (const { version, path, method, operation } of allOperations) {
      if (operation.requestBody) expect({ version, path, method, examples: Object.keys(operation.requestBody.content['application/json']!.examples ?? {}).length > 0 }).toEqual({ version, path, method, examples: true });
    }
    const values = cases.map(([, , , value]) => value as { status?: string; error?: unknown });
    for (const status of ['PROCESSING', 'REQUIRES_ACTION', 'FAILED', 'PENDING', 'pending', 'succeeded', 'refunded']) expect(values.some((value) => value.status === status)).toBe(true);
    expect(values.some((value) => value.error !== undefined)).toBe(true);
  });

  it.each(cases)('%s matches its schema (closed: no field the schema lacks)', (_label, version, ref, value) => {
    const validate = validators[version].validatorAt(ref);
    expect({ valid: validate(value), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });
});

describe('drift: the document is generated from the declarations', () => {
  it('request components are what joi-to-json makes of the joi schemas each route validates with', () => {
    for (const spec of OPERATIONS) {
      for (const [shape, body] of Object.entries(spec.requestBody ?? {})) {
        const version = shape === 'A' ? SHAPE_A_VERSION : SHAPE_B_VERSION;
        expect({ component: body.component, schema: documents[version].components.schemas[body.component] }).toEqual({ component: body.component, schema: joiToJsonSchema(body.schema) });
      }
    }
  });

  it('every field of every request body and query has a description (from the joi schema)', () => {
    const undocumented: string[] = [];
    for (const version of KNOWN_VERSIONS) {
      const visit = (schema: JsonSchema, at: string) => {
        for (const [key, property] of Object.entries(schema.properties ?? {})) {
          if (!property.description) undocumented.push(`${version} ${at}.${key}`);
          visit(property, `${at}.${key}`);
        }
      };
      for (const [name, schema] of Object.entries(documents[version].components.schemas)) if (name.endsWith('Request') || name.endsWith('RequestB')) visit(schema, name);
      for (const { path, operation } of operationsOf(version)) {
        for (const parameter of operation.parameters ?? []) if (!('$ref' in parameter) && !parameter.description) undocumented.push(`${version} ${path} ?${parameter.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('custom rules joi-to-json cannot see are stated (character limits, formats, patterns) and the meta key is gone', () => {
    const schemas = current.components.schemas;
    expect(schemas.RefundRequest!.properties!.reason!.maxLength).toBe(50);
    expect(schemas.DirectPaymentRequest!.properties!.description!.maxLength).toBe(500);
    expect(schemas.DirectPaymentRequest!.properties!.payment_method_data!.properties!.card!.properties!.holder_name!.maxLength).toBe(255);
    expect(schemas.DirectPaymentRequest!.properties!.return_url).toMatchObject({ format: 'uri', maxLength: 2048 });
    expect(schemas.DirectPaymentRequest!.properties!.currency!.pattern).toBe('^\\s*[A-Za-z]{3}\\s*$');
    expect(JSON.stringify(documents)).not.toContain('x-json-schema');
  });

  it('Shape B requests come from their joi schemas: `customer` and `metadata` may be null, metadata is string to string', () => {
    const hosted = older.components.schemas.HostedPaymentRequestB!;
    const validate = validators[SHAPE_B_VERSION].validatorAt(pointer('components', 'schemas', 'HostedPaymentRequestB'));
    const body = { amount: 1000, currency: 'eur', redirect_url: 'https://shop.example/return' };
    for (const nulls of [{ customer: null }, { metadata: null }, { description: null, callback_url: null }]) {
      expect({ nulls, valid: validate({ ...body, ...nulls }) }).toEqual({ nulls, valid: true });
    }
    expect(validate({ ...body, metadata: { order: 42 } })).toBe(false);
    expect(validate({ ...body, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) })).toBe(false);
    expect(validate({ ...body, surprise: 1 })).toBe(false);
    expect(hosted.properties!.metadata!.properties).toBeUndefined();
  });

  it('list query parameters are the keys of the shape\'s joi query schema, repeatable filters typed as arrays of their enum', () => {
    for (const spec of OPERATIONS.filter((candidate) => candidate.query)) {
      for (const [shape, query] of Object.entries(spec.query!)) {
        const version = shape === 'A' ? DEFAULT_VERSION : SHAPE_B_VERSION;
        const documented = (documents[version].paths[spec.path]![spec.method]!.parameters ?? [])
          .filter((parameter): parameter is ParameterObject => !('$ref' in parameter) && parameter.in === 'query');
        const { properties } = joiToJsonSchema(query);
        expect(documented.map((parameter) => parameter.name)).toEqual(Object.keys(properties ?? {}));
      }
    }
    const parameter = (version: ApiVersion, path: string, name: string) => (documents[version].paths[path]!.get!.parameters ?? [])
      .find((candidate): candidate is ParameterObject => !('$ref' in candidate) && candidate.name === name)!;
    const repeatable = (values: readonly string[]) => ({ style: 'form', explode: true, schema: { type: 'array', maxItems: 20, items: { type: 'string', enum: [...values] } } });
    expect(parameter(SHAPE_A_VERSION, '/v1/payments', 'status')).toMatchObject(repeatable(PAYMENT_STATUSES));
    expect(parameter(SHAPE_B_VERSION, '/v1/payments', 'status')).toMatchObject(repeatable(SHAPE_B_STATUSES));
    expect(parameter(SHAPE_A_VERSION, '/v1/payouts', 'status')).toMatchObject(repeatable(PAYOUT_STATUSES));
    expect(parameter(SHAPE_A_VERSION, '/v1/payouts', 'card_brand')).toMatchObject(repeatable(['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY', 'UNKNOWN']));
    expect(parameter(SHAPE_A_VERSION, '/v1/events', 'type')).toMatchObject(repeatable([...EVENT_TYPES, 'payment.*', 'refund.*', 'payout.*']));
    expect(parameter(SHAPE_A_VERSION, '/v1/payouts', 'currency')).toMatchObject({ style: 'form', explode: true, schema: { type: 'array', items: { type: 'string' } } });
    // No filter is `anyOf` a value and a list of values any more.
    const queryParameters = allOperations.flatMap(({ operation }) => (operation.parameters ?? []).filter((candidate): candidate is ParameterObject => !('$ref' in candidate)));
    expect(queryParameters.filter((candidate) => candidate.schema.anyOf || candidate.schema.oneOf).map((candidate) => candidate.name)).toEqual([]);
  });

  it('the Idempotency-Key bound is the one the middleware enforces', () => {
    expect(current.components.parameters.IdempotencyKey!.schema.maxLength).toBe(255);
  });
});

describe('routes', () => {
  const routerRoutes = (() => {
    const app = createApp({ config: loadConfig() } as Deps);
    const dispatch = app.middleware.find((middleware) => (middleware as { router?: unknown }).router) as unknown as
      { router: { stack: Array<{ path: string; methods: string[]; name: string | null }> } };
    return dispatch.router.stack.flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD')
      .map((method) => ({ route: `${method} ${layer.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`, name: layer.name })));
  })();

  it('every route the router serves is declared, or listed as not part of the merchant API; every declaration is routed under its name', () => {
    const declaredRoutes = new Map<string, string>(OPERATIONS.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation.routeName ?? operation.id]));
    expect(routerRoutes.filter(({ route }) => !declaredRoutes.has(route) && !(route in UNDOCUMENTED_ROUTES))).toEqual([]);
    for (const route of Object.keys(UNDOCUMENTED_ROUTES)) expect(routerRoutes.map((entry) => entry.route)).toContain(route);
    for (const [route, name] of declaredRoutes) expect(routerRoutes.filter((entry) => entry.route === route)).toEqual([{ route, name }]);
  });

  it('the documents together describe every declared operation, each in the documents of the shapes it speaks', () => {
    const described = new Set(allOperations.map(({ method, path }) => `${method.toUpperCase()} ${path}`));
    expect([...described].sort()).toEqual(OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`).sort());
    for (const spec of OPERATIONS) {
      const inCurrent = Boolean(current.paths[spec.path]?.[spec.method]);
      expect({ id: spec.id, inCurrent }).toEqual({ id: spec.id, inCurrent: spec.shapes.length === 0 || spec.shapes.includes('A') });
      expect(older.paths[spec.path]?.[spec.method]).toBeDefined();
    }
  });
});

describe('errors', () => {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

  it('every error response lists codes of its own HTTP status, and only codes of the operation in its shape', () => {
    for (const { version, path, method, operation } of allOperations) {
      const spec = declared(operation);
      const shape = operation['x-shapes'][0] === 'B' ? 'B' : 'A';
      const allowed = new Set(errorCodesFor(spec, shape));
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const code of response['x-error-codes'] ?? []) {
          expect({ version, path, method, code, status: ERROR_CATALOGUE[code as ErrorCode].status }).toEqual({ version, path, method, code, status: Number(status) });
          expect({ version, path, method, code, allowed: allowed.has(code as ErrorCode) }).toEqual({ version, path, method, code, allowed: true });
        }
      }
    }
  });

  it('every catalogue code but resource_not_found is answered by some operation of some version', () => {
    const answered = new Set(allOperations.flatMap(({ operation }) => Object.values(operation.responses).flatMap((response) => response['x-error-codes'] ?? [])));
    expect(codes.filter((code) => !answered.has(code))).toEqual(['resource_not_found']);
    expect(ERROR_SCOPES.resource_not_found).toEqual([]);
    const answeredByCurrent = new Set(operationsOf(SHAPE_A_VERSION).flatMap(({ operation }) => Object.values(operation.responses).flatMap((response) => response['x-error-codes'] ?? [])));
    expect(answeredByCurrent.has('card_declined')).toBe(false);
    expect(answeredByCurrent.has('charge_already_refunded')).toBe(false);
  });

  it('authenticated operations document 401, 400, 500 and 503; creates 409 with both idempotency codes', () => {
    for (const { version, path, method, operation } of allOperations.filter(({ operation }) => declared(operation).authenticated)) {
      const { responses } = operation;
      expect({ version, path, method, statuses: ['400', '401', '500', '503'].filter((status) => !responses[status]) }).toEqual({ version, path, method, statuses: [] });
      expect(responses['401']!['x-error-codes']).toEqual(['invalid_api_key']);
      if (declared(operation).create) expect(responses['409']!['x-error-codes']).toEqual(expect.arrayContaining(['idempotency_key_in_use', 'idempotency_key_reused']));
    }
  });

  it('catalogue examples: payouts and payments answer their specific codes', () => {
    const codesOf = (document: OpenApiDocument, path: string, method: string, status: string) => document.paths[path]![method]!.responses[status]?.['x-error-codes'];
    expect(codesOf(current, '/v1/payouts', 'post', '422')).toEqual(['currency_not_supported', 'invalid_card', 'merchant_not_provisioned', 'unsupported_card']);
    expect(codesOf(current, '/v1/payments', 'post', '429')).toEqual(['rate_limit_exceeded']);
    expect(codesOf(current, '/v1/payouts/{payout_id}', 'get', '429')).toEqual(['rate_limit_exceeded']);
    expect(codesOf(current, '/v1/payments', 'post', '402')).toBeUndefined();
    expect(codesOf(older, '/v1/payments', 'post', '402')).toEqual(['card_declined']);
    expect(codesOf(current, '/v1/refunds', 'post', '403')).toEqual(['actor_forbidden']);
    expect(codesOf(current, '/v1/payments', 'get', '400')).toEqual(['invalid_request', 'invalid_search_criteria', 'parameter_invalid']);
    expect(codesOf(current, '/openapi.json', 'get', '400')).toEqual(['invalid_request']);
    expect(current.paths['/v1/health']!.get!.responses['401']).toBeUndefined();
  });

  it('both envelopes list the catalogue as known codes; Shape B-only codes stay out of Shape A', () => {
    const codeEnum = (name: string) => openEnumValues(older.components.schemas[name]!.properties!.error!.properties!.code as JsonSchema);
    expect(codeEnum('ErrorB')).toEqual(codes);
    expect(codeEnum('Error')).toEqual(codes.filter((code) => code !== 'card_declined' && code !== 'charge_already_refunded'));
    expect(current.components.schemas.Error!.properties!.error!.properties!.request_id!.pattern).toBe('^req_[A-Za-z0-9]{24}$');
  });
});

describe('what standard tools need', () => {
  const valid = (validator: OpenApiValidator, ref: string, value: unknown) => {
    const validate = validator.validatorAt(ref);
    return { valid: validate(value), errors: validate.errors ?? null };
  };
  const responseSchema = (path: string, method: string, status: string) => pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema');

  it('names one server: the public base URL it is built for, by default the configured one', () => {
    expect(openApiDocument('https://payments.shop.test').servers).toEqual([{ url: 'https://payments.shop.test', description: expect.any(String) }]);
    expect(openApiDocument('https://payments.shop.test', SHAPE_B_VERSION).servers.map((server) => server.url)).toEqual(['https://payments.shop.test']);
    expect(current.servers.map((server) => server.url)).toEqual([loadConfig().publicBaseUrl]);
    expect(current.servers[0]!.url).not.toMatch(/\/$/);
  });

  it('fields may be added to responses: a validator of the published document accepts an added field at any depth, the tests\' closed copy does not', () => {
    const published = Object.fromEntries(KNOWN_VERSIONS.map((version) => [version, new OpenApiValidator(documents[version], { published: true })])) as Record<ApiVersion, OpenApiValidator>;
    const withAddedFields = (value: any) => ({ ...value, added_later: { any: 'thing' }, card: value.card && { ...value.card, added_later: 1 } });
    const cases: Array<[ApiVersion, string, unknown]> = [
      [SHAPE_A_VERSION, responseSchema('/v1/payments/{id}', 'get', '200'), withAddedFields(EXAMPLES.paymentSucceededWithRefund!.value)],
      [SHAPE_B_VERSION, responseSchema('/v1/payments/{id}', 'get', '200'), withAddedFields(EXAMPLES.paymentSucceededB!.value)],
      [SHAPE_A_VERSION, responseSchema('/v1/payouts', 'get', '200'), { ...(EXAMPLES.payoutList!.value as object), added_later: true }],
      [SHAPE_A_VERSION, responseSchema('/v1/refunds', 'post', '422'), { error: { code: 'amount_exceeds_refundable', message: 'm', doc_url: 'https://x.test/docs#error-x', request_id: 'req_4mT8qZ2xK9pL3vR7wB5nC1dF', added_later: 1 } }],
    ];
    for (const [version, ref, value] of cases) {
      expect({ ref, ...valid(published[version], ref, value) }).toEqual({ ref, valid: true, errors: null });
      expect({ ref, valid: valid(validators[version], ref, value).valid }).toEqual({ ref, valid: false });
    }
    const webhook = pointer('webhooks', 'payment.succeeded', 'post', 'requestBody', 'content', 'application/json', 'schema');
    const event = { id: 'evt_0123456789abcdef01234567', type: 'payment.succeeded', created_at: 1767225600, livemode: false, data: { object: withAddedFields(EXAMPLES.paymentSucceededWithRefund!.value) }, added_later: 1 };
    expect(valid(published[SHAPE_A_VERSION], webhook, event)).toEqual({ valid: true, errors: null });
    // No response object in either document forbids other properties.
    for (const version of KNOWN_VERSIONS) {
      const responseComponents = Object.entries(documents[version].components.schemas).filter(([name]) => !/Request(B)?$/.test(name));
      expect(schemaNodes(Object.fromEntries(responseComponents), '#').filter(({ node }) => node.additionalProperties === false).map(({ at }) => at)).toEqual([]);
    }
    // Requests stay closed: an unknown property is refused.
    expect(current.components.schemas.DirectPaymentRequest!.additionalProperties).toBe(false);
  });

  it('error codes and failure codes list the known values and accept a code added later', () => {
    const later = 'code_added_later';
    const a = validators[SHAPE_A_VERSION];
    const errorA = { error: { code: later, message: 'm', doc_url: 'https://x.test/docs#error-x', request_id: 'req_4mT8qZ2xK9pL3vR7wB5nC1dF' } };
    expect(valid(a, pointer('components', 'schemas', 'Error'), errorA)).toEqual({ valid: true, errors: null });
    expect(valid(a, responseSchema('/v1/refunds', 'post', '422'), errorA)).toEqual({ valid: true, errors: null });
    const errorB = { error: { type: 'card_error', code: later, message: 'm', param: null, decline_code: later, doc_url: 'https://x.test/docs#error-x', request_id: 'req_4mT8qZ2xK9pL3vR7wB5nC1dF' } };
    expect(valid(validators[SHAPE_B_VERSION], responseSchema('/v1/payments', 'post', '402'), errorB)).toEqual({ valid: true, errors: null });

    const failed = (name: string) => EXAMPLES[name]!.value as Record<string, any>;
    expect(valid(a, pointer('components', 'schemas', 'Payment'), { ...failed('paymentFailed'), failure_code: later })).toEqual({ valid: true, errors: null });
    expect(valid(a, pointer('components', 'schemas', 'Payout'), { ...failed('payoutFailed'), failure_code: later })).toEqual({ valid: true, errors: null });
    const refund = failed('refundFailed');
    expect(valid(a, pointer('components', 'schemas', 'Refund'), { ...refund, failure: { ...refund.failure, code: later } })).toEqual({ valid: true, errors: null });
    expect(valid(a, pointer('components', 'schemas', 'Payout'), { ...failed('payoutFailed'), failure_code: 42 }).valid).toBe(false);
    expect(valid(a, pointer('components', 'schemas', 'Payout'), { ...failed('payoutFailed'), failure_code: null }).valid).toBe(false);

    const schemas = current.components.schemas;
    expect(openEnumValues(schemas.Payment!.properties!.failure_code!)).toEqual([...FAILURE_CODES]);
    expect(openEnumValues(schemas.Payout!.properties!.failure_code!)).toEqual([...FAILURE_CODES]);
    expect(openEnumValues(schemas.Refund!.properties!.failure!.properties!.code!)).toEqual([...FAILURE_CODES]);
  });

  it.each(KNOWN_VERSIONS)('%s: a webhook for every event type the service raises, with the signature headers and the event envelope', (version) => {
    const document = documents[version];
    expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
    for (const [type, { post: operation }] of Object.entries(document.webhooks)) {
      const headers = (operation.parameters ?? []).map((parameter) => ('$ref' in parameter ? document.components.parameters[parameter.$ref.split('/').pop()!]! : parameter))
        .map((parameter) => `${parameter.in} ${parameter.name}${parameter.required ? ' required' : ''}`);
      expect({ type, headers }).toEqual({ type, headers: ['header webhook-id required', 'header webhook-timestamp required', 'header webhook-signature required'] });
      expect({ type, security: operation.security }).toEqual({ type, security: [] });
      expect(Object.keys(operation.responses)).toEqual(['2XX', 'default']);
      const object = type.split('.')[0]!;
      const snapshot = { payment: version === SHAPE_B_VERSION ? 'paymentSucceededB' : 'paymentProcessing', refund: 'refundProcessing', payout: 'payoutPending' }[object]!;
      const body = (eventType: string) => ({ id: 'evt_0123456789abcdef01234567', type: eventType, created_at: 1767225600, livemode: false, data: { object: EXAMPLES[snapshot]!.value } });
      const ref = pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema');
      expect({ type, ...valid(validators[version], ref, body(type)) }).toEqual({ type, valid: true, errors: null });
      const other = EVENT_TYPES.find((candidate) => candidate !== type && candidate.startsWith(`${object}.`))!;
      expect({ type, other, valid: valid(validators[version], ref, body(other)).valid }).toEqual({ type, other, valid: false });
    }
  });

  it('the older document\'s POST /v1/payments/hpp has its Shape B callback: the payment in Shape B to callback_url, signed like the webhooks', () => {
    const withCallbacks = allOperations.filter(({ operation }) => operation.callbacks).map(({ version, method, path }) => `${version} ${method} ${path}`);
    expect(withCallbacks).toEqual([`${SHAPE_B_VERSION} post /v1/payments/hpp`]);
    const callback = older.paths['/v1/payments/hpp']!.post!.callbacks!.paymentCompletedB!['{$request.body#/callback_url}']!.post;
    expect(callback.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/PaymentB' });
    expect(callback.parameters).toEqual(older.webhooks['payment.succeeded']!.post.parameters);
    expect(older.components.schemas.HostedPaymentRequestB!.properties!.callback_url).toBeDefined();
  });
});
