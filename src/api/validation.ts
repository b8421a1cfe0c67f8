// The one validation path (CONTRACT 2 steps 6-7). Joi reports every problem; structural ones
// (unreadable JSON, missing or null required fields, unknown properties, wrong JSON types) are
// `request_body_invalid`, and a well-typed value that breaks a bound, format or enum is
// `parameter_invalid`, both with the dotted path of the field.
import type Joi from 'joi';
import { ApiError, type ErrorCode } from '../domain/errors';
import type { AppContext } from './context';
import { readBodyText } from './request-body';

const STRUCTURAL = new Set(['any.required', 'object.unknown', 'number.integer', 'object.base', 'array.base', 'string.base', 'number.base', 'boolean.base', 'alternatives.types']);

function dottedPath(path: (string | number)[]): string | undefined {
  return path.length ? path.join('.') : undefined;
}

export function joiErrorToApiError(error: Joi.ValidationError, structuralCode: ErrorCode, valueCode: ErrorCode): ApiError {
  const details = error.details;
  const structural = details.find((d) => STRUCTURAL.has(d.type));
  const chosen = structural ?? details[0]!;
  const code = structural ? structuralCode : valueCode;
  const param = dottedPath(chosen.path);
  const message = chosen.message.replace(/"/g, '`');
  return new ApiError(code, { param, message: message.endsWith('.') ? message : `${message}.` });
}

export function validateBody<T>(schema: Joi.Schema<T>, value: unknown, context: Record<string, unknown> = {}): T {
  const result = schema.validate(value, { abortEarly: false, convert: false, context, errors: { wrap: { label: '`' } } });
  if (result.error) throw joiErrorToApiError(result.error, 'request_body_invalid', 'parameter_invalid');
  return result.value;
}

/** Reads the body as JSON: media type, size limit, syntax, and an object at the top. */
export async function readJsonBody(ctx: AppContext, limitBytes: number): Promise<Record<string, unknown>> {
  if (!ctx.is('application/json')) {
    throw new ApiError('request_body_invalid', { message: 'The request body must be JSON sent with Content-Type: application/json.' });
  }
  return parseJsonObject(await readBodyText(ctx, limitBytes));
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
  const proto = protoFieldPath(parsed);
  if (proto !== null) throw new ApiError('request_body_invalid', { param: proto, message: `\`${proto}\` is not allowed.` });
  return parsed as Record<string, unknown>;
}

/**
 * The dotted path of a `__proto__` field at any depth, or null. JSON.parse keeps it as an own field,
 * and joi drops it silently instead of refusing it as an unknown property. Iterative: bodies may nest deep.
 */
function protoFieldPath(root: object): string | null {
  type Visit = { node: unknown; key: string; parent: Visit | null };
  const pending: Visit[] = [{ node: root, key: '', parent: null }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { node } = visit;
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      const next: Visit = { node: child, key, parent: visit };
      if (key === '__proto__' && !Array.isArray(node)) {
        const path: string[] = [];
        for (let at: Visit | null = next; at?.parent; at = at.parent) path.unshift(at.key);
        return path.join('.');
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
