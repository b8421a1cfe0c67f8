// One declaration per operation of the public interface: its method and path, who may call it, the
// shapes it speaks, the joi schemas of its body and query (with their `.description()`s), the
// response schemas its serializers' answers match, and the prose and examples of its reference.
// The router registers each route from its declaration (`route()`), and the OpenAPI document of
// every version and the docs page are derived from the same declarations: nothing is listed twice.
import type { RouterMiddleware } from '@koa/router';
import type Joi from 'joi';
import type { Shape } from '../../representations/versions';
import type { AppRouter, RequestState } from '../context';

export type Tag = 'Payments' | 'Refunds' | 'Payouts' | 'Webhook endpoints' | 'Events' | 'Service';

/** A JSON body: the component schema it is, and the names of its examples (in `src/api/openapi/examples.ts`). */
export interface JsonBody {
  component: string;
  examples?: readonly string[];
}

/** A request body in one shape: the joi schema the route validates with, which the document is generated from. */
export interface RequestBody<T = unknown> extends JsonBody {
  schema: Joi.Schema<T>;
}

/** A response the operation gives on success (or, for health, when degraded). */
export interface SuccessResponse {
  status: number;
  description: string;
  /** JSON body per shape spoken (a service operation, which has no shape, under `A`). */
  json?: Partial<Record<Shape, JsonBody>>;
  /** Non-JSON body. */
  mediaType?: 'text/plain' | 'text/html';
}

export type PathParameter = 'PaymentId' | 'PayoutId' | 'WebhookEndpointId' | 'EventId';

export interface Operation {
  /** The OpenAPI `operationId`. */
  id: string;
  /** The router's name for the route (the `route` label of metrics), when it is not `id`. */
  routeName?: string;
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path template (`/v1/payments/{id}`). */
  path: string;
  tag: Tag;
  summary: string;
  description: string;
  /** Needs `Authorization: Bearer <API key>`. */
  authenticated: boolean;
  /** A create: `Idempotency-Key` required; 2xx answers are saved and replayed. */
  create: boolean;
  /** Shapes spoken; two means the request's `Service-Version` decides. None: a service endpoint. */
  shapes: readonly Shape[];
  pathParameter?: PathParameter;
  /** The joi schema of the query string per shape; each key is a query parameter. */
  query?: Partial<Record<Shape, Joi.ObjectSchema>>;
  requestBody?: Partial<Record<Shape, RequestBody>>;
  /** The body may be left out (every field has a default). */
  requestBodyOptional?: boolean;
  responses: readonly SuccessResponse[];
  /** Shape B hosted payments: the completed payment is POSTed to the request's `callback_url`. */
  shapeBCallback?: boolean;
}

/** Keeps the literal types of a declaration (its joi schemas' value types) while checking it. */
export function operation<const T extends Operation>(declaration: T): T {
  return declaration;
}

/** `/v1/payments/{id}` as the router writes it: `/v1/payments/:id`. */
export function routerPath(path: string): string {
  return path.replace(/\{([A-Za-z_]+)\}/g, ':$1');
}

/** Registers the route of a declared operation: its method, path and name come from the declaration. */
export function route(router: AppRouter, declared: Operation, ...middleware: Array<RouterMiddleware<RequestState>>): void {
  router[declared.method](declared.routeName ?? declared.id, routerPath(declared.path), ...middleware);
}
