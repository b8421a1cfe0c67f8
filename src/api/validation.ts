// The one validation path (docs/api-reference.md, "Order of checks", steps 7 and 8). Joi reports
// every problem; structural ones (unreadable JSON, missing or null required fields, unknown
// properties, wrong JSON types) are `request_body_invalid`, and a well-typed value that breaks a
// bound, format or enum is `parameter_invalid`, both with the dotted path of the field. Text that
// is not well-formed Unicode (an unpaired surrogate) is `parameter_invalid` in every field of every
// body, keys included.
import type Joi from 'joi';
import { ApiError, type ErrorCode } from '../domain/errors';
import { isWellFormedText } from '../domain/text';
import type { AppContext } from './context';
import { readBodyText } from './request-body';

const STRUCTURAL = new Set(['any.required', 'object.unknown', 'number.integer', 'object.base', 'array.base', 'string.base', 'number.base', 'boolean.base', 'alternatives.types']);

function dottedPath(path: (string | number)[]): string | undefined {
  return path.length ? path.join('.') : undefined;
}

function apiErrorOf(detail: Joi.ValidationErrorItem, code: ErrorCode): ApiError {
  const message = detail.message.replace(/"/g, '`');
  return new ApiError(code, { param: dottedPath(detail.path), message: message.endsWith('.') ? message : `${message}.` });
}

export function joiErrorToApiError(error: Joi.ValidationError, structuralCode: ErrorCode, valueCode: ErrorCode): ApiError {
  const structural = error.details.find((d) => STRUCTURAL.has(d.type));
  return structural ? apiErrorOf(structural, structuralCode) : apiErrorOf(error.details[0]!, valueCode);
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

/** `parameter_invalid` at the first string value (its path) or key (its object's path) that is not well-formed. */
function refuseIllFormedText(root: unknown): void {
  const found = findField(root, (key, child) => (typeof child === 'string' && !isWellFormedText(child)) || !isWellFormedText(key));
  if (!found) return;
  const keyIsBad = !isWellFormedText(found.key);
  const param = (keyIsBad ? found.path.slice(0, -1) : found.path).join('.') || undefined;
  const label = param === undefined ? 'The request body' : `\`${param}\``;
  throw new ApiError('parameter_invalid', {
    param,
    message: `${label} ${keyIsBad ? 'has a key that is' : 'is'} not valid Unicode text: it holds an unpaired UTF-16 surrogate (such as \\ud800 without its pair).`,
  });
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
  const proto = findField(parsed, (key, _child, inArray) => key === '__proto__' && !inArray);
  if (proto) {
    const param = proto.path.join('.');
    throw new ApiError('request_body_invalid', { param, message: `\`${param}\` is not allowed.` });
  }
  return parsed as Record<string, unknown>;
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
  if (result.error) throw joiErrorToApiError(result.error, code, code);
  return result.value;
}
