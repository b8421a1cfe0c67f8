// The /docs reference page rendered from the OpenAPI document, and the validator the integration
// tests use: it must reject drift with a message that shows where.
import { createHash } from 'node:crypto';
import { renderDocsPage } from '../../src/api/docs-page/render';
import { docsSecurityHeaders } from '../../src/api/docs-page/style';
import { openApiDocument } from '../../src/api/openapi/document';
import { EXAMPLES } from '../../src/api/openapi/examples';
import { ERROR_CATALOGUE } from '../../src/domain/errors';
import { FAILURE_CODES } from '../../src/domain/failure-codes';
import { SHAPE_B_VERSION } from '../../src/representations/versions';
import { OpenApiValidator, VersionedValidator } from '../helpers/openapi';

const document = openApiDocument();
const page = renderDocsPage(document);
const olderDocument = openApiDocument(undefined, SHAPE_B_VERSION);
const olderPage = renderDocsPage(olderDocument);

describe('docs page', () => {
  it('has an #error-<code> anchor for every catalogue code, which error.doc_url links to', () => {
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(page).toContain(`id="error-${code}"`);
  });

  it('has every operation, schema and failure code, and links only to anchors on the page or /openapi.json', () => {
    const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) expect(ids).toContain(`op-${operation.operationId}`);
    }
    for (const name of Object.keys(document.components.schemas)) expect(ids).toContain(`schema-${name}`);
    for (const code of FAILURE_CODES) expect(page).toContain(`<code>${code}</code>`);
    const links = [...page.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);
    const broken = links.filter((link) => !(link === '/openapi.json' || link === `/docs?version=${SHAPE_B_VERSION}` || (link.startsWith('#') && ids.has(link.slice(1)))));
    expect(broken).toEqual([]);
  });

  it('the older version has a page of its own, linked both ways, with its own document', () => {
    expect(page).toContain(`<a href="/docs?version=${SHAPE_B_VERSION}">${SHAPE_B_VERSION}</a>`);
    expect(olderPage).toContain('<a href="/docs">2025-09-01</a>');
    expect(olderPage).toContain(`<a href="/openapi.json?version=${SHAPE_B_VERSION}">`);
    expect(olderPage).toContain('id="op-refundPaymentB"');
    expect(page).not.toContain('id="op-refundPaymentB"');
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(olderPage).toContain(`id="error-${code}"`);
    expect(olderPage).toContain('<h4>Callback: Shape B <code>callback_url</code></h4>');
  });

  it('shows parameters, error codes per operation and examples', () => {
    expect(page).toContain('<code>Idempotency-Key</code>');
    expect(page).toContain('<code>created[gte]</code>');
    expect(page).toContain('<code>payment_method_data.card.number</code>');
    expect(page).toContain('Error codes: <a href="#error-rate_limit_exceeded">');
    expect(page).toContain('REQUIRES_ACTION: 3D Secure');
  });

  it('needs nothing external and runs no script: one inline stylesheet allowed by its hash', () => {
    expect(page).not.toMatch(/<script|<link|<img|<iframe|\son[a-z]+=|src=/i);
    expect(page).not.toMatch(/(href|src)="(https?:)?\/\//);
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    const csp = docsSecurityHeaders()['Content-Security-Policy']!;
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(csp).toMatch(/^default-src 'none';/);
  });

  it('shows the server, the known values of open enums and every webhook', () => {
    expect(page).toContain(`Base URL <code>${document.servers[0]!.url}</code>`);
    expect(page).toContain('known values <code>&quot;actor_forbidden&quot;</code>');
    expect(page).toContain('known values <code>&quot;not_found&quot;</code>');
    expect(page).not.toContain('string | string');
    const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    for (const { post } of Object.values(document.webhooks)) expect(ids).toContain(`op-${post.operationId}`);
    expect(page).toContain("<code>payment.succeeded</code> <span>to the merchant's webhook endpoint</span>");
  });

  it('escapes what it renders', () => {
    expect(page).not.toContain('<Idempotency-Key>');
    expect(page).toContain('&quot;PROCESSING&quot;');
  });
});

describe('response validator', () => {
  const validator = new OpenApiValidator(document);
  const headers = { 'Request-Id': 'req_4mT8qZ2xK9pL3vR7wB5nC1dF', 'Service-Version': '2025-09-01', 'Content-Type': 'application/json' };
  const processing = EXAMPLES.paymentProcessing!.value as Record<string, unknown>;

  it('accepts an answer shaped like the serializers emit', () => {
    expect(() => validator.validateResponse('POST', '/v1/payments', 201, processing, headers)).not.toThrow();
    expect(validator.validated).toContain('POST /v1/payments 201');
  });

  it('rejects an unknown field, naming it', () => {
    expect(() => validator.validateResponse('POST', '/v1/payments', 201, { ...processing, surprise: 1 }, headers))
      .toThrow(/must NOT have additional properties.*surprise/);
  });

  it('rejects next_action outside REQUIRES_ACTION', () => {
    const withAction = { ...processing, next_action: { type: 'redirect', reason: 'three_d_secure', redirect_url: 'https://x.example/' } };
    expect(() => validator.validateResponse('GET', '/v1/payments/{id}', 200, withAction, headers)).toThrow(/\/next_action: must be null/);
  });

  it('holds each version to its own document', () => {
    const versioned = new VersionedValidator();
    const shapeB = { ...headers, 'Service-Version': '2024-06-01' };
    expect(() => versioned.validateResponse('GET', '/v1/payments/{id}', 200, processing, shapeB)).toThrow(/response schema of 2024-06-01/);
    expect(() => versioned.validateResponse('GET', '/v1/payments/{id}', 200, EXAMPLES.paymentSucceededB!.value, shapeB)).not.toThrow();
    expect(() => versioned.validateResponse('GET', '/v1/payments/{id}', 200, EXAMPLES.paymentSucceededB!.value, headers)).toThrow(/response schema of 2025-09-01/);
    // An answer given before the version was known (no header) to an operation only the older version has.
    const unauthorized = { error: { code: 'invalid_api_key', message: 'x', doc_url: 'https://x.test/docs#error-invalid_api_key', request_id: headers['Request-Id'] } };
    const { 'Service-Version': _none, ...beforeVersion } = headers;
    expect(() => versioned.validateResponse('POST', '/v1/payments/{id}/refund', 401, unauthorized, beforeVersion)).not.toThrow();
  });

  it('rejects a status the operation does not document, and a code it does not answer with', () => {
    expect(() => validator.validateResponse('GET', '/v1/payments/{id}', 418, {}, headers)).toThrow(/status not documented/);
    const envelope = { error: { code: 'processing_error', message: 'x', request_id: headers['Request-Id'] } };
    expect(() => validator.validateResponse('POST', '/v1/refunds', 502, envelope, headers)).toThrow(/status not documented/);
    const wrongCode = { error: { code: 'unsupported_card', message: 'x', request_id: headers['Request-Id'] } };
    expect(() => validator.validateResponse('POST', '/v1/payments', 422, wrongCode, headers)).toThrow(/error\.code "unsupported_card" is not documented for this operation and status/);
  });

  it('checks a delivered webhook: its type, body and signature headers', () => {
    const event = document.webhooks['payment.failed']!.post.requestBody!.content['application/json']!.examples!.paymentFailedEvent!.value as Record<string, any>;
    const signed = { 'webhook-id': event.id, 'webhook-timestamp': '1767229200', 'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' };
    expect(() => validator.validateWebhook(event, signed)).not.toThrow();
    expect(() => validator.validateWebhook({ ...event, type: 'payment.disputed' }, signed)).toThrow(/webhook payment.disputed is not in the OpenAPI document's webhooks/);
    expect(() => validator.validateWebhook({ ...event, data: { object: { ...event.data.object, surprise: 1 } } }, signed)).toThrow(/must NOT have additional properties.*surprise/);
    const { 'webhook-signature': _omitted, ...unsigned } = signed;
    expect(() => validator.validateWebhook(event, unsigned)).toThrow(/header webhook-signature: required but absent/);
  });

  it('checks documented headers', () => {
    const { 'Request-Id': _omitted, ...withoutRequestId } = headers;
    expect(() => validator.validateResponse('POST', '/v1/payments', 201, processing, withoutRequestId)).toThrow(/header Request-Id: required but absent/);
    expect(() => validator.validateResponse('POST', '/v1/payments', 201, processing, { ...headers, 'Request-Id': 'nope' })).toThrow(/header Request-Id/);
  });
});
