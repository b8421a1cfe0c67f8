// Renders the OpenAPI document as one static HTML reference page, on the server: operations by
// resource with their parameters, bodies, responses, error codes and examples; every schema as a
// table; the error catalogue with an `#error-<code>` anchor per code (where `error.doc_url` points).
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors';
import { FAILURE_CODES, failureMessage } from '../../domain/failure-codes';
import { documentStart, escapeHtml } from '../../web/html';
import { SHAPE_B_ONLY_CODES } from '../openapi/error-scopes';
import {
  openEnumValues, refName, type ExampleObject, type HeaderObject, type JsonSchema, type OpenApiDocument, type OperationObject,
  type ParameterObject, type Reference, type ResponseObject,
} from '../openapi/types';
import { DEFAULT_VERSION, KNOWN_VERSIONS } from '../../representations/versions';
import { DOCS_STYLE } from './style';

interface PageOperation {
  /** The path, or for a webhook the event type. */
  path: string;
  method: string;
  operation: OperationObject;
  webhook?: boolean;
}

/** Inline markdown of the descriptions: `code` and **bold**, paragraphs on blank lines. */
function markdown(text: string): string {
  const inline = (line: string) => escapeHtml(line)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  return text.split(/\n\s*\n/).map((paragraph) => `<p>${inline(paragraph.trim())}</p>`).join('\n');
}

function inlineMarkdown(text: string): string {
  return markdown(text).replace(/^<p>|<\/p>$/g, '');
}

const operationAnchor = (operationId: string) => `op-${operationId}`;
const schemaLink = (ref: string) => `<a href="#schema-${escapeHtml(refName(ref))}">${escapeHtml(refName(ref))}</a>`;
const errorLink = (code: string) => `<a href="#error-${escapeHtml(code)}"><code>${escapeHtml(code)}</code></a>`;

function typeText(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return schemaLink(schema.$ref);
  if (openEnumValues(schema)) return schema.anyOf!.some((option) => option.type === 'null') ? 'string | null' : 'string';
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return alternatives.map(typeText).join(' | ');
  if (schema.allOf) return schema.allOf.map(typeText).filter((text) => text !== 'object').join(' & ');
  if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) return schema.not ? 'never' : 'any';
  return types.map((type) => {
    if (type === 'array') return `array of ${typeText(schema.items)}`;
    return schema.format ? `${type} (${escapeHtml(schema.format)})` : type;
  }).join(' | ');
}

function constraints(schema: JsonSchema): string {
  const parts: string[] = [];
  const code = (value: unknown) => `<code>${escapeHtml(JSON.stringify(value))}</code>`;
  if (schema.enum) parts.push(`one of ${schema.enum.map(code).join(', ')}`);
  const known = openEnumValues(schema);
  if (known) parts.push(`known values ${known.map(code).join(', ')}; others may appear`);
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) parts.push(`length ≥ ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`length ≤ ${schema.maxLength}`);
  if (schema.pattern !== undefined) parts.push(`pattern <code>${escapeHtml(schema.pattern)}</code>`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (schema.maxProperties !== undefined) parts.push(`at most ${schema.maxProperties} keys`);
  if (typeof schema.additionalProperties === 'object') parts.push(`values: ${typeText(schema.additionalProperties)}`);
  if (schema.default !== undefined) parts.push(`default ${code(schema.default)}`);
  return parts.join('; ');
}

interface FieldRow {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** Object fields as rows, nested inline objects flattened to dotted names (`card.number`). */
function fieldRows(schema: JsonSchema, prefix = ''): FieldRow[] {
  const rows: FieldRow[] = [];
  const required = schema.required ?? [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const name = `${prefix}${key}`;
    rows.push({ name, schema: property, required: required.includes(key) });
    const inlineObject = [property, property.items, ...(property.oneOf ?? [])].find((candidate) => candidate?.properties && !candidate.$ref);
    if (inlineObject) rows.push(...fieldRows(inlineObject, inlineObject === property.items ? `${name}[].` : `${name}.`));
  }
  return rows;
}

function fieldsTable(schema: JsonSchema): string {
  const rows = fieldRows(schema);
  if (!rows.length) return `<p class="meta">Type: ${typeText(schema)}${constraints(schema) ? `; ${constraints(schema)}` : ''}</p>`;
  const body = rows.map((row) => `<tr><td class="name"><code>${escapeHtml(row.name)}</code>${row.required ? ' <span class="req">required</span>' : ''}</td>`
    + `<td>${typeText(row.schema)}</td><td>${row.schema.description ? inlineMarkdown(row.schema.description) : ''}`
    + `${constraints(row.schema) ? `<div class="constraints">${constraints(row.schema)}</div>` : ''}</td></tr>`).join('\n');
  const closed = schema.additionalProperties === false ? '<p class="meta">No other fields.</p>' : '';
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead><tbody>\n${body}\n</tbody></table>${closed}`;
}

function resolveParameter(document: OpenApiDocument, parameter: ParameterObject | Reference): ParameterObject {
  if (!('$ref' in parameter)) return parameter;
  const resolved = document.components.parameters[refName(parameter.$ref)];
  if (!resolved) throw new Error(`unresolvable parameter ${parameter.$ref}`);
  return resolved;
}

function resolveHeader(document: OpenApiDocument, header: HeaderObject | Reference): HeaderObject {
  if (!('$ref' in header)) return header;
  const resolved = document.components.headers[refName(header.$ref)];
  if (!resolved) throw new Error(`unresolvable header ${header.$ref}`);
  return resolved;
}

function parametersTable(document: OpenApiDocument, operation: OperationObject): string {
  if (!operation.parameters?.length) return '';
  const rows = operation.parameters.map((reference) => resolveParameter(document, reference)).map((parameter) => `<tr>`
    + `<td class="name"><code>${escapeHtml(parameter.name)}</code>${parameter.required ? ' <span class="req">required</span>' : ''}</td>`
    + `<td>${parameter.in}${parameter.explode ? ', repeatable' : ''}</td><td>${typeText(parameter.schema)}</td>`
    + `<td>${inlineMarkdown(parameter.description)}${constraints(parameter.schema) ? `<div class="constraints">${constraints(parameter.schema)}</div>` : ''}</td></tr>`);
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

function examplesBlock(examples: Record<string, ExampleObject> | undefined): string {
  return Object.values(examples ?? {}).map((example) => `<details><summary>${inlineMarkdown(example.summary)}</summary>`
    + `${example.description ? markdown(example.description) : ''}<pre><code>${escapeHtml(JSON.stringify(example.value, null, 2))}</code></pre></details>`).join('\n');
}

function requestBlock(operation: OperationObject): string {
  const body = operation.requestBody;
  if (!body) return '';
  const media = body.content['application/json']!;
  return `<h4>Request body</h4><p>JSON: ${typeText(media.schema)}. ${body.description ? inlineMarkdown(body.description) : ''}</p>\n${examplesBlock(media.examples)}`;
}

function bodyText(response: ResponseObject): string {
  const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
  if (!mediaType || !media) return 'none';
  return mediaType === 'application/json' ? typeText(media.schema) : `<code>${escapeHtml(mediaType)}</code>`;
}

function responsesBlock(document: OpenApiDocument, operation: OperationObject): string {
  const entries = Object.entries(operation.responses);
  const rows = entries.map(([status, response]) => {
    const codes = response['x-error-codes'];
    const described = codes ? `Error codes: ${codes.map(errorLink).join(', ')}` : inlineMarkdown(response.description);
    const headers = Object.entries(response.headers ?? {})
      .map(([name, header]) => `<code>${escapeHtml(name)}</code>${resolveHeader(document, header).required ? '' : ' (optional)'}`).join(', ');
    return `<tr><td><strong>${status}</strong></td><td>${described}</td><td>${bodyText(response)}</td><td>${headers}</td></tr>`;
  });
  const examples = entries.map(([status, response]) => {
    const block = examplesBlock(response.content?.['application/json']?.examples);
    return block ? block.replace(/<summary>/g, `<summary>${status}: `) : '';
  }).join('\n');
  return `<h4>Responses</h4><table><thead><tr><th>Status</th><th>Meaning</th><th>Body</th><th>Headers</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>\n${examples ? `<h4>Examples</h4>\n${examples}` : ''}`;
}

function callbacksBlock(operation: OperationObject): string {
  return Object.values(operation.callbacks ?? {}).flatMap((byUrl) => Object.entries(byUrl)).map(([url, { post }]) => `<h4>Callback: ${inlineMarkdown(post.summary)}</h4>
${markdown(post.description)}
<p class="meta">POST to <code>${escapeHtml(url)}</code>, signed like the webhooks. Body: ${typeText(post.requestBody!.content['application/json']!.schema)}.</p>`).join('\n');
}

function operationBlock(document: OpenApiDocument, { path, method, operation, webhook }: PageOperation): string {
  const shapes = operation['x-shapes'];
  const auth = webhook ? 'signed by the service (Standard Webhooks, <code>webhook-signature</code>)'
    : operation.security?.length === 0 ? 'none' : 'Bearer API key';
  const target = webhook ? `<code>${escapeHtml(path)}</code> <span>to the merchant's webhook endpoint</span>`
    : `<code>${escapeHtml(path)}</code> <span>${escapeHtml(operation.summary)}</span>`;
  const shapeText = shapes.length ? ` · Shape ${shapes.join(' and ')}` : '';
  return `<article class="operation" id="${operationAnchor(operation.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> ${target}</h3>
${markdown(operation.description)}
<p class="meta">Authentication: ${auth}${shapeText}</p>
${parametersTable(document, operation)}
${requestBlock(operation)}
${responsesBlock(document, operation)}
${callbacksBlock(operation)}
</article>`;
}

function operationsByTag(document: OpenApiDocument): Map<string, PageOperation[]> {
  const byTag = new Map<string, PageOperation[]>(document.tags.map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) byTag.get(operation.tags[0]!)?.push({ path, method, operation });
  }
  for (const [type, { post }] of Object.entries(document.webhooks)) byTag.get(post.tags[0]!)?.push({ path: type, method: 'post', operation: post, webhook: true });
  return byTag;
}

function errorCatalogue(document: OpenApiDocument, byTag: Map<string, PageOperation[]>): string {
  const all = [...byTag.values()].flat();
  const rows = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => {
    const answering = all.filter(({ operation }) => Object.values(operation.responses).some((response) => response['x-error-codes']?.includes(code)));
    const where = code === 'resource_not_found' ? 'Any method and path that no operation matches.'
      : answering.map(({ operation, method, path }) => `<a href="#${operationAnchor(operation.operationId)}">${method.toUpperCase()} ${escapeHtml(path)}</a>`).join('<br>');
    return `<tr id="error-${code}"><td class="name"><code>${code}</code></td><td>${ERROR_CATALOGUE[code].status}</td>`
      + `<td>${escapeHtml(ERROR_CATALOGUE[code].message)}</td><td>${SHAPE_B_ONLY_CODES.has(code) ? 'B' : 'A, B'}</td><td>${where}</td></tr>`;
  });
  return `<section id="errors"><h2>Errors</h2>
${markdown('Every error answers with an envelope: `Error` (Shape A) or `ErrorB` (Shape B). Branch on the HTTP status first, then on `error.code`; new codes may appear. 400, 401, 403, 404 and 422: correct the request, no blind retry. 409: inspect the related objects and idempotency state. 429: wait for `Retry-After` or back off. 500, 502, 503: back off and retry with the same `Idempotency-Key`.')}
<table><thead><tr><th>Code</th><th>HTTP</th><th>Meaning</th><th>Shapes</th><th>Operations</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
<p class="meta">Envelope schemas: ${Object.keys(document.components.schemas).filter((name) => name === 'Error' || name === 'ErrorB').map((name) => schemaLink(`#/components/schemas/${name}`)).join(', ')}.</p>
</section>`;
}

function failureCodes(): string {
  const rows = FAILURE_CODES.map((code) => `<tr><td class="name"><code>${code}</code></td><td>${escapeHtml(failureMessage(code))}</td></tr>`);
  return `<section id="failure-codes"><h2>Operation failure codes</h2>
${markdown('Values of a Payment\'s `failure_code`, a Refund\'s `failure.code` and a Payout\'s `failure_code`. They describe why an operation failed; they are not HTTP error codes.')}
<table><thead><tr><th>Code</th><th>Meaning</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></section>`;
}

function schemasSection(document: OpenApiDocument): string {
  const blocks = Object.entries(document.components.schemas).map(([name, schema]) => `<h3 id="schema-${escapeHtml(name)}">${escapeHtml(name)}</h3>
${schema.description ? markdown(schema.description) : ''}
${fieldsTable(schema)}`);
  return `<section id="schemas"><h2>Schemas</h2>\n${blocks.join('\n')}\n</section>`;
}

function navigation(document: OpenApiDocument, byTag: Map<string, PageOperation[]>): string {
  const groups = [...byTag.entries()].map(([tag, operations]) => `<h2><a href="#tag-${tag}">${escapeHtml(tag)}</a></h2><ul>
${operations.map(({ method, path, operation }) => `<li><a href="#${operationAnchor(operation.operationId)}"><span class="method ${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a></li>`).join('\n')}
</ul>`).join('\n');
  const schemaLinks = Object.keys(document.components.schemas).map((name) => `<li>${schemaLink(`#/components/schemas/${name}`)}</li>`).join('\n');
  return `<nav aria-label="Contents"><h2><a href="#overview">Overview</a></h2>
${groups}
<h2><a href="#errors">Errors</a></h2><h2><a href="#failure-codes">Failure codes</a></h2>
<h2><a href="#schemas">Schemas</a></h2><ul>${schemaLinks}</ul></nav>`;
}

export function renderDocsPage(document: OpenApiDocument): string {
  const byTag = operationsByTag(document);
  const tagSections = document.tags.map((tag) => `<section id="tag-${tag.name}"><h2>${escapeHtml(tag.name)}</h2>
${markdown(tag.description)}
${(byTag.get(tag.name) ?? []).map((entry) => operationBlock(document, entry)).join('\n')}
</section>`).join('\n');
  const version = document.info.version;
  const query = version === DEFAULT_VERSION ? '' : `?version=${encodeURIComponent(version)}`;
  const others = KNOWN_VERSIONS.filter((other) => other !== version)
    .map((other) => `<a href="/docs${other === DEFAULT_VERSION ? '' : `?version=${encodeURIComponent(other)}`}">${escapeHtml(other)}</a>`).join(', ');
  return `${documentStart(`${document.info.title} reference`, DOCS_STYLE)}
<header class="top"><h1>${escapeHtml(document.info.title)}</h1>
<p>Version ${escapeHtml(version)} (other versions: ${others}) · Base URL <code>${escapeHtml(document.servers[0]?.url ?? '')}</code> · OpenAPI ${document.openapi} document: <a href="/openapi.json${query}">/openapi.json${escapeHtml(query)}</a></p></header>
<div class="layout">
${navigation(document, byTag)}
<main>
<section id="overview"><h2>Overview</h2>
${markdown(document.info.description)}
</section>
${tagSections}
${errorCatalogue(document, byTag)}
${failureCodes()}
${schemasSection(document)}
</main>
</div>
</body>
</html>
`;
}
