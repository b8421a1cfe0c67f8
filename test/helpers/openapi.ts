// Validates real answers against the OpenAPI documents with ajv (JSON Schema 2020-12, as OpenAPI 3.1
// uses): the body against the response schema of that operation and status in the document of the
// answering `Service-Version`, an error's code against the codes documented for that operation and
// status, and the documented response headers; and the requests the service makes (webhooks, the
// Shape B callback) against the document's `webhooks` and `callbacks`. Failures read as a list of
// paths, problems and the offending values.
//
// The published documents leave response objects open (fields may be added). The validator checks a
// closed copy (`closedForTests`) unless told otherwise, so that a field a serializer emits and the
// document lacks fails the tests instead of passing unseen.
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { openApiDocument } from '../../src/api/openapi/document';
import type { HeaderObject, JsonSchema, OpenApiDocument, OperationObject, ParameterObject, Reference, ResponseObject } from '../../src/api/openapi/types';
import { DEFAULT_VERSION, KNOWN_VERSIONS, type ApiVersion } from '../../src/representations/versions';

const DOCUMENT_ID = 'https://openapi.local/openapi.json';
const INT32 = 2 ** 31;

/** JSON pointer escaping of one segment (RFC 6901), then URI fragment escaping. */
const pointerSegment = (segment: string): string => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

export function pointer(...segments: string[]): string {
  return `${DOCUMENT_ID}#/${segments.map(pointerSegment).join('/')}`;
}

/**
 * A copy of the document whose objects with listed properties take no others, as the serializers
 * promise today. Parts of compositions (`allOf` members, `if`/`then`/`else` fragments) stay open:
 * they describe some properties of an object closed elsewhere.
 */
export function closedForTests(document: OpenApiDocument): OpenApiDocument {
  const close = (node: unknown, inComposition: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => close(item, inComposition));
    if (node === null || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) copy[key] = close(child, key === 'allOf');
    const types = ([] as unknown[]).concat(copy.type ?? []);
    if (!inComposition && copy.properties && types.includes('object') && copy.additionalProperties === undefined) copy.additionalProperties = false;
    return copy;
  };
  return close(document, false) as OpenApiDocument;
}

export function createAjv(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  // OpenAPI's format names; `uri` and `email` only as far as responses need them.
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= -INT32 && value < INT32 });
  ajv.addFormat('uri', (value: string) => {
    try {
      return Boolean(new URL(value).protocol);
    } catch {
      return false;
    }
  });
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  // The whole document is registered so that `#/components/...` pointers resolve; its top-level
  // OpenAPI fields are declared as (inert) keywords because ajv compiles the root to resolve them.
  ajv.addVocabulary(Object.keys(document));
  ajv.addSchema({ ...document, $id: DOCUMENT_ID } as object);
  return ajv;
}

function valueAt(body: unknown, instancePath: string): unknown {
  let current = body;
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

function describeErrors(errors: ErrorObject[] | null | undefined, body: unknown): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const error of errors ?? []) {
    const shown = JSON.stringify(valueAt(body, error.instancePath)) ?? 'undefined';
    const line = `  ${error.instancePath || '(body)'}: ${error.message ?? error.keyword} ${JSON.stringify(error.params)}; got ${shown.length > 200 ? `${shown.slice(0, 200)}...` : shown}  [${error.schemaPath}]`;
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  return lines.join('\n');
}

type HeaderSource = Headers | Record<string, string | undefined>;

function headerValue(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? null : record[key] ?? null;
}

export class OpenApiValidator {
  readonly ajv: Ajv2020;
  readonly document: OpenApiDocument;
  /** `METHOD /path status` of every answer validated, for coverage checks. */
  readonly validated = new Set<string>();
  private readonly compiled = new Map<string, ValidateFunction>();

  /** `published`: validate against the document exactly as served (open response objects), not the closed copy. */
  constructor(document: OpenApiDocument, options: { published?: boolean } = {}) {
    this.document = options.published ? document : closedForTests(document);
    this.ajv = createAjv(this.document);
  }

  /** Compiles the schema at a pointer into the document (cached). */
  validatorAt(ref: string): ValidateFunction {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  /** Every schema the document holds, compiled: components, parameters, headers, bodies. Throws on the first that does not compile. */
  compileAll(): number {
    const refs: string[] = Object.keys(this.document.components.schemas).map((name) => pointer('components', 'schemas', name));
    for (const name of Object.keys(this.document.components.parameters)) refs.push(pointer('components', 'parameters', name, 'schema'));
    for (const name of Object.keys(this.document.components.headers)) refs.push(pointer('components', 'headers', name, 'schema'));
    const paths = Object.entries(this.document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ base: ['paths', path, method], operation })));
    const callbacks = paths.flatMap(({ base, operation }) => Object.entries(operation.callbacks ?? {})
      .flatMap(([name, byUrl]) => Object.entries(byUrl).map(([url, { post }]) => ({ base: [...base, 'callbacks', name, url, 'post'], operation: post }))));
    const operations = [
      ...paths,
      ...callbacks,
      ...Object.entries(this.document.webhooks).map(([type, { post }]) => ({ base: ['webhooks', type, 'post'], operation: post })),
    ];
    for (const { base, operation } of operations) {
      for (const [index, parameter] of (operation.parameters ?? []).entries()) {
        if (!('$ref' in parameter)) refs.push(pointer(...base, 'parameters', String(index), 'schema'));
      }
      for (const mediaType of Object.keys(operation.requestBody?.content ?? {})) refs.push(pointer(...base, 'requestBody', 'content', mediaType, 'schema'));
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const mediaType of Object.keys(response.content ?? {})) refs.push(pointer(...base, 'responses', status, 'content', mediaType, 'schema'));
      }
    }
    for (const ref of refs) this.validatorAt(ref);
    return refs.length;
  }

  private header(header: HeaderObject | Reference): HeaderObject {
    if (!('$ref' in header)) return header;
    const name = header.$ref.slice(header.$ref.lastIndexOf('/') + 1);
    const resolved = this.document.components.headers[name];
    if (!resolved) throw new Error(`unresolvable header reference ${header.$ref}`);
    return resolved;
  }

  private checkHeaders(documented: Array<[string, HeaderObject]>, headers: HeaderSource): string[] {
    const problems: string[] = [];
    for (const [name, header] of documented) {
      const raw = headerValue(headers, name);
      if (raw === null) {
        if (header.required) problems.push(`  header ${name}: required but absent`);
        continue;
      }
      const schema = header.schema as JsonSchema;
      const value = schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      const validate = this.ajv.compile(schema);
      if (!validate(value)) problems.push(`  header ${name}: ${JSON.stringify(raw)} ${this.ajv.errorsText(validate.errors)}`);
    }
    return problems;
  }

  private parameter(parameter: ParameterObject | Reference): ParameterObject {
    if (!('$ref' in parameter)) return parameter;
    const resolved = this.document.components.parameters[parameter.$ref.slice(parameter.$ref.lastIndexOf('/') + 1)];
    if (!resolved) throw new Error(`unresolvable parameter reference ${parameter.$ref}`);
    return resolved;
  }

  private checkBody(ref: string, body: unknown, what: string): string[] {
    const validate = this.validatorAt(ref);
    return validate(body) ? [] : [`  body does not match ${what}:`, describeErrors(validate.errors, body)];
  }

  /** Throws a readable error unless the answer matches the document. */
  validateResponse(method: string, pathTemplate: string, status: number, body: unknown, headers: HeaderSource = {}): void {
    const verb = method.toLowerCase();
    const label = `${method.toUpperCase()} ${pathTemplate} ${status}`;
    const operation = this.document.paths[pathTemplate]?.[verb];
    if (!operation) throw new Error(`${method.toUpperCase()} ${pathTemplate} is not in the OpenAPI document`);
    const response = operation.responses[String(status)];
    if (!response) {
      const documented = Object.keys(operation.responses).join(', ');
      throw new Error(`${label}: status not documented (documented: ${documented}); body: ${JSON.stringify(body)}`);
    }
    const problems = this.checkHeaders(Object.entries(response.headers ?? {}).map(([name, header]) => [name, this.header(header)]), headers);
    const contentType = (headerValue(headers, 'content-type') ?? '').split(';')[0]!.trim();
    const documentedTypes = Object.keys(response.content ?? {});
    if (contentType && documentedTypes.length && !documentedTypes.includes(contentType)) {
      problems.push(`  Content-Type ${contentType} is not documented (${documentedTypes.join(', ')})`);
    }
    if (response.content?.['application/json']) {
      const ref = pointer('paths', pathTemplate, verb, 'responses', String(status), 'content', 'application/json', 'schema');
      problems.push(...this.checkBody(ref, body, `the response schema of ${this.document.info.version}`));
      // The schemas accept codes added later; the codes this operation answers today are listed.
      const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
      const documentedCodes = response['x-error-codes'];
      if (documentedCodes && !documentedCodes.includes(code as string)) {
        problems.push(`  error.code ${JSON.stringify(code)} is not documented for this operation and status (${documentedCodes.join(', ')})`);
      }
    } else if (typeof body !== 'string') {
      problems.push(`  body: expected text (${documentedTypes.join(', ')}), got ${typeof body}`);
    }
    if (problems.length) {
      throw new Error(`${label} does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${JSON.stringify(body, null, 2)}`);
    }
    this.validated.add(label);
  }

  /** Throws a readable error unless a delivered webhook (its body and headers) matches the document's `webhooks` entry for its type. */
  validateWebhook(body: unknown, headers: HeaderSource): void {
    const type = (body as { type?: unknown } | null)?.type;
    const label = `webhook ${String(type)}`;
    const webhook = typeof type === 'string' ? this.document.webhooks[type]?.post : undefined;
    if (!webhook) throw new Error(`${label} is not in the OpenAPI document's webhooks (${Object.keys(this.document.webhooks).join(', ')})`);
    this.validateRequest(label, webhook, ['webhooks', type as string, 'post'], body, headers);
  }

  /** Throws a readable error unless a request the service made as the named callback of an operation matches the document. */
  validateCallback(method: string, pathTemplate: string, name: string, body: unknown, headers: HeaderSource): void {
    const verb = method.toLowerCase();
    const label = `${method.toUpperCase()} ${pathTemplate} callback ${name}`;
    const [url, item] = Object.entries(this.document.paths[pathTemplate]?.[verb]?.callbacks?.[name] ?? {})[0] ?? [];
    if (!url || !item) throw new Error(`${label} is not in the OpenAPI document`);
    this.validateRequest(label, item.post, ['paths', pathTemplate, verb, 'callbacks', name, url, 'post'], body, headers);
  }

  private validateRequest(label: string, operation: OperationObject, base: string[], body: unknown, headers: HeaderSource): void {
    const documentedHeaders = (operation.parameters ?? []).map((parameter) => this.parameter(parameter))
      .filter((parameter) => parameter.in === 'header').map((parameter): [string, HeaderObject] => [parameter.name, parameter]);
    const problems = [
      ...this.checkHeaders(documentedHeaders, headers),
      ...this.checkBody(pointer(...base, 'requestBody', 'content', 'application/json', 'schema'), body, 'the request schema'),
    ];
    if (problems.length) throw new Error(`${label} does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${JSON.stringify(body, null, 2)}`);
    this.validated.add(label);
  }
}

/**
 * Validators of every version's document: an answer is checked against the document of the version
 * that answered (its `Service-Version` header); one given before the version was known, against the
 * current version's document, or the one document that has the operation.
 */
export class VersionedValidator {
  readonly byVersion: Record<ApiVersion, OpenApiValidator>;

  constructor(documentOf: (version: ApiVersion) => OpenApiDocument = (version) => openApiDocument(undefined, version)) {
    this.byVersion = Object.fromEntries(KNOWN_VERSIONS.map((version) => [version, new OpenApiValidator(documentOf(version))])) as Record<ApiVersion, OpenApiValidator>;
  }

  /** `METHOD /path status` of every answer validated, whichever the version. */
  get validated(): Set<string> {
    return new Set(Object.values(this.byVersion).flatMap((validator) => [...validator.validated]));
  }

  of(version: ApiVersion = DEFAULT_VERSION): OpenApiValidator {
    return this.byVersion[version];
  }

  validateResponse(method: string, pathTemplate: string, status: number, body: unknown, headers: HeaderSource = {}): void {
    const version = headerValue(headers, 'service-version') as ApiVersion | null;
    const verb = method.toLowerCase();
    const validator = version && this.byVersion[version] ? this.byVersion[version]
      : [this.of(), ...Object.values(this.byVersion)].find((candidate) => candidate.document.paths[pathTemplate]?.[verb]) ?? this.of();
    validator.validateResponse(method, pathTemplate, status, body, headers);
  }

  /** A webhook as an endpoint on `version` receives it. */
  validateWebhook(body: unknown, headers: HeaderSource, version: ApiVersion = DEFAULT_VERSION): void {
    this.of(version).validateWebhook(body, headers);
  }

  /** Callbacks exist in the version whose operation makes them (Shape B's `callback_url`). */
  validateCallback(method: string, pathTemplate: string, name: string, body: unknown, headers: HeaderSource, version: ApiVersion): void {
    this.of(version).validateCallback(method, pathTemplate, name, body, headers);
  }
}

let shared: VersionedValidator | undefined;

/** The validators of the documents the API serves. */
export function openApiValidator(): VersionedValidator {
  shared ??= new VersionedValidator();
  return shared;
}

export function validateResponse(method: string, pathTemplate: string, status: number, body: unknown, headers: HeaderSource = {}): void {
  openApiValidator().validateResponse(method, pathTemplate, status, body, headers);
}
