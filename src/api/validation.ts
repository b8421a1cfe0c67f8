// The one validation path (docs/api-reference.md, "Order of checks", steps 7 and 8). Joi reports
// every problem; structural ones (unreadable JSON, missing or null required fields, unknown
// properties, wrong JSON types) are `request_body_invalid`, and a well-typed value that breaks a
// bound, format or enum is `parameter_invalid`, both with the dotted path of the field. Text that
// is not well-formed Unicode (an unpaired surrogate) is `parameter_invalid` in every field of every
// body, keys included.
import type Joi from 'joi';
import { visit } from 'jsonc-parser';
import { ApiError, type ErrorCode } from '../domain/errors';
import { forbiddenControlIn, isWellFormedText } from '../domain/text';
import type { AppContext } from './context';
import { readBodyText } from './request-body';

const STRUCTURAL = new Set(['any.required', 'object.unknown', 'number.integer', 'object.base', 'array.base', 'string.base', 'number.base', 'boolean.base', 'alternatives.types']);

function dottedPath(path: (string | number)[]): string | undefined {
  return path.length ? path.join('.') : undefined;
}

/** A query parameter is one name (`status`), whichever of its repeated values failed. */
function parameterName(path: (string | number)[]): string | undefined {
  return path.length ? String(path[0]) : undefined;
}

function apiErrorOf(detail: Joi.ValidationErrorItem, code: ErrorCode, paramOf = dottedPath): ApiError {
  const message = detail.message.replace(/"/g, '`');
  return new ApiError(code, { param: paramOf(detail.path), message: message.endsWith('.') ? message : `${message}.` });
}

/** Structure first, then well-formed text, then the schema's value rules. */
export function validateBody<T>(schema: Joi.Schema<T>, value: unknown, context: Record<string, unknown> = {}): T {
  const result = schema.validate(value, { abortEarly: false, convert: false, context, errors: { wrap: { label: '`' } } });
  const structural = result.error?.details.find((d) => STRUCTURAL.has(d.type));
  if (structural) throw apiErrorOf(structural, 'request_body_invalid');
  refuseIllFormedText(value);
  if (result.error) throw apiErrorOf(result.error.details[0]!, 'parameter_invalid');
  return result.value;
}

/**
 * `parameter_invalid` at the first string value (its path) or key (its object's path) that is not
 * well-formed Unicode or holds a forbidden control character (domain/text.ts).
 */
function refuseIllFormedText(root: unknown): void {
  // What is wrong with a text, said of its field ("`x` is ...") or of a key ("`x` has a key that is ...").
  const problemOf = (text: string): string | null => {
    if (!isWellFormedText(text)) return 'not valid Unicode text: it holds an unpaired UTF-16 surrogate (such as \\ud800 without its pair)';
    const control = forbiddenControlIn(text);
    return control ? `text with the control character ${control}, which is refused (NUL and other control characters, except tab and line breaks, and bidirectional overrides and isolates)` : null;
  };
  let problem: { text: string; inKey: boolean } | null = null;
  const found = findField(root, (key, child) => {
    const inKey = problemOf(key);
    const inValue = typeof child === 'string' ? problemOf(child) : null;
    if (inKey ?? inValue) problem = { text: (inKey ?? inValue)!, inKey: inKey !== null };
    return problem !== null;
  });
  if (!found || !problem) return;
  const { text, inKey } = problem as { text: string; inKey: boolean };
  const param = (inKey ? found.path.slice(0, -1) : found.path).join('.') || undefined;
  const label = param === undefined ? 'The request body' : `\`${param}\``;
  throw new ApiError('parameter_invalid', { param, message: `${label} ${inKey ? 'has a key that is' : 'is'} ${text}.` });
}

/** Reads the body as JSON: media type, size limit, syntax, and an object at the top. */
export async function readJsonBody(ctx: AppContext, limitBytes: number): Promise<Record<string, unknown>> {
  if (!ctx.is('application/json')) {
    throw new ApiError('request_body_invalid', { message: 'The request body must be JSON sent with Content-Type: application/json.' });
  }
  return parseJsonObject(await readBodyText(ctx, limitBytes));
}

/** For operations whose body is optional: nothing at all is `{}`; else as readJsonBody. */
export async function readOptionalJsonBody(ctx: AppContext, limitBytes: number): Promise<Record<string, unknown>> {
  const raw = await readBodyText(ctx, limitBytes);
  if (raw.trim() === '') return {};
  if (!ctx.is('application/json')) {
    throw new ApiError('request_body_invalid', { message: 'The request body must be JSON sent with Content-Type: application/json.' });
  }
  return parseJsonObject(raw);
}

/** For operations without a body: nothing at all, or the empty JSON object `{}`. */
export async function readEmptyJsonBody(ctx: AppContext, limitBytes: number): Promise<void> {
  const raw = await readBodyText(ctx, limitBytes);
  if (raw.trim() === '') return;
  if (!ctx.is('application/json')) {
    throw new ApiError('request_body_invalid', { message: 'This operation takes no body; send none, or {} with Content-Type: application/json.' });
  }
  const unexpected = Object.keys(parseJsonObject(raw))[0];
  if (unexpected !== undefined) {
    throw new ApiError('request_body_invalid', { param: unexpected, message: `This operation takes no body fields; \`${unexpected}\` is not allowed.` });
  }
}

function parseJsonObject(raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError('request_body_invalid', { message: 'The request body is not valid JSON.' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError('request_body_invalid', { message: 'The request body must be a JSON object.' });
  }
  const duplicate = firstDuplicateKey(raw);
  if (duplicate !== null) {
    const param = duplicate.join('.');
    throw new ApiError('request_body_invalid', { param, message: `\`${param}\` appears more than once in its object; send each field once.` });
  }
  const proto = findField(parsed, (key, _child, inArray) => key === '__proto__' && !inArray);
  if (proto) {
    const param = proto.path.join('.');
    throw new ApiError('request_body_invalid', { param, message: `\`${param}\` is not allowed.` });
  }
  return parsed as Record<string, unknown>;
}

/**
 * The dotted path of the first key that appears twice in one object, at any depth, or null.
 * JSON.parse keeps the last of two equal keys while a proxy, a log or another parser may read the
 * first, so one body would mean two requests. Keys compare as parsed (`"a"` and `"\\u0061"` are one
 * key). Called only on text JSON.parse accepted.
 */
function firstDuplicateKey(raw: string): string[] | null {
  const open: Array<Set<string> | null> = []; // one entry per open object (a Set) or array (null)
  let found: string[] | null = null;
  visit(raw, {
    onObjectBegin: () => { open.push(new Set()); },
    onObjectEnd: () => { open.pop(); },
    onArrayBegin: () => { open.push(null); },
    onArrayEnd: () => { open.pop(); },
    onObjectProperty: (property, _offset, _length, _line, _character, pathSupplier) => {
      const keys = open[open.length - 1];
      if (found !== null || !keys) return;
      if (keys.has(property)) found = [...pathSupplier().map(String), property];
      keys.add(property);
    },
  });
  return found;
}

/**
 * The first field of a parsed body, at any depth, that `matches` (with its dotted path), or null.
 * JSON.parse keeps a `__proto__` field as an own field, which joi drops silently instead of refusing
 * it as an unknown property. Iterative: bodies may nest deep.
 */
function findField(root: unknown, matches: (key: string, child: unknown, inArray: boolean) => boolean): { key: string; path: string[] } | null {
  type Visit = { node: unknown; key: string; parent: Visit | null };
  const pending: Visit[] = [{ node: root, key: '', parent: null }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { node } = visit;
    if (node === null || typeof node !== 'object') continue;
    const inArray = Array.isArray(node);
    for (const [key, child] of Object.entries(node)) {
      const next: Visit = { node: child, key, parent: visit };
      if (matches(key, child, inArray)) {
        const path: string[] = [];
        for (let at: Visit | null = next; at?.parent; at = at.parent) path.unshift(at.key);
        return { key, path };
      }
      pending.push(next);
    }
  }
  return null;
}

/** Query strings: every problem is `invalid_search_criteria` (lists) with the parameter name. */
export function validateQuery<T>(schema: Joi.Schema<T>, query: unknown, code: ErrorCode = 'invalid_search_criteria'): T {
  const result = schema.validate(query, { abortEarly: true, convert: true, errors: { wrap: { label: '`' } } });
  if (result.error) throw apiErrorOf(result.error.details[0]!, code, parameterName);
  return result.value;
}

/**
 * The window rules lists share (docs/api-reference.md, "Lists"): one cursor at a time, and a
 * creation window that does not end before it starts (when the list takes one: a Payment list
 * reads an inverted window as an empty page, so it passes only its cursors).
 */
export function checkListWindow(query: { starting_after?: string; ending_before?: string; 'created[gte]'?: number; 'created[lt]'?: number }): void {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new ApiError('invalid_search_criteria', { param: 'ending_before', message: '`starting_after` and `ending_before` cannot be used together.' });
  }
  const createdGte = query['created[gte]'];
  const createdLt = query['created[lt]'];
  if (createdGte !== undefined && createdLt !== undefined && createdGte > createdLt) {
    throw new ApiError('invalid_search_criteria', { param: 'created[lt]', message: '`created[lt]` must not be before `created[gte]`.' });
  }
}
