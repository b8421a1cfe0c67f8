// The small part of OpenAPI 3.1 and JSON Schema 2020-12 this service writes and reads back (the
// docs page renders from the same objects), typed loosely enough to hold joi-to-json output.

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  maxProperties?: number;
  items?: JsonSchema;
  maxItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  [keyword: string]: unknown;
}

export interface ExampleObject {
  summary: string;
  description?: string;
  value: unknown;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  examples?: Record<string, ExampleObject>;
}

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'header' | 'path';
  description: string;
  required?: boolean;
  schema: JsonSchema;
  style?: 'form' | 'simple';
  explode?: boolean;
}

export type Reference = { $ref: string };

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
  /** Error responses: the catalogue codes this operation answers with at this status. */
  'x-error-codes'?: string[];
}

export interface OperationObject {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<ParameterObject | Reference>;
  requestBody?: { required: boolean; description?: string; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
  /** Requests the service makes because of this one, by name, then by the URL expression they go to. */
  callbacks?: Record<string, Record<string, { post: OperationObject }>>;
  /** The shape the operation speaks in this document; empty for service endpoints. */
  'x-shapes': string[];
}

export interface ServerObject {
  url: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: ServerObject[];
  tags: Array<{ name: string; description: string }>;
  security: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, OperationObject>>;
  /** What the service POSTs to the merchant's webhook endpoint, by event type. */
  webhooks: Record<string, { post: OperationObject }>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, ParameterObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * A string with known values that may take new ones later (error and failure codes): `anyOf` the
 * known values and any string. Validators and generated clients accept a value added later, and
 * readers and generators still see the known ones (openapi-typescript: `("a" | "b") | string`).
 */
export function openEnum(values: readonly string[], description: string, nullable = false): JsonSchema {
  return {
    description,
    anyOf: [
      { type: 'string', enum: [...values] },
      { type: 'string', description: 'A value added after this document was published.' },
      ...(nullable ? [{ type: 'null' }] : []),
    ],
  };
}

/** The known values of an `openEnum` schema, or undefined for any other schema. */
export function openEnumValues(schema: JsonSchema): unknown[] | undefined {
  const [known, other] = schema.anyOf ?? [];
  return known?.enum && other?.type === 'string' && other.enum === undefined ? known.enum : undefined;
}
