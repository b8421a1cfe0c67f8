// Request bodies and list queries in JSON Schema, generated from the joi schemas the API validates
// with (their `.description()`s included), so the document cannot drift from the validation.
// joi-to-json cannot see custom rules (currency, IP literal, https URL, Luhn, character counts...):
// such a rule states what it means in JSON Schema as the `x-json-schema` meta (`documented()` in
// src/api/schemas/common.ts), laid over the generated schema of its field here.
import type Joi from 'joi';
import parse from 'joi-to-json';
import { JSON_SCHEMA_META } from '../schemas/common';
import type { JsonSchema, ParameterObject } from './types';

export function joiToJsonSchema(schema: Joi.Schema): JsonSchema {
  return withCustomRules(parse(schema, 'open-api-3.1') as JsonSchema);
}

function withCustomRules(node: unknown): JsonSchema {
  if (Array.isArray(node)) {
    node.forEach(withCustomRules);
  } else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    // A single allowed value comes out as a bare `const`, which generators type as anything (Go's
    // `interface{}`): a one-value string enum is a type they name.
    if (typeof record.const === 'string' && record.type === undefined) {
      record.type = 'string';
      record.enum = [record.const];
      delete record.const;
    }
    const rule = record[JSON_SCHEMA_META] as JsonSchema | undefined;
    if (rule) {
      delete record[JSON_SCHEMA_META];
      Object.assign(record, rule);
      // Keys matched by a schema (`Joi.object().pattern(...)`) come out as a closed, empty object.
      if (rule.additionalProperties !== undefined && Object.keys(record.properties as object ?? {}).length === 0) delete record.properties;
    }
    Object.values(record).forEach(withCustomRules);
  }
  return node as JsonSchema;
}

/** The query parameters of a joi query schema, one per key; repeatable ones are arrays, sent as `name=a&name=b`. */
export function queryParameters(query: Joi.ObjectSchema): ParameterObject[] {
  const schema = joiToJsonSchema(query);
  return Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const { description, ...valueSchema } = property;
    return {
      name: key,
      in: 'query',
      description: description ?? '',
      required: (schema.required ?? []).includes(key),
      schema: valueSchema,
      ...(valueSchema.type === 'array' ? { style: 'form', explode: true } : {}),
    } satisfies ParameterObject;
  });
}
