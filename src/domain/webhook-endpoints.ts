// Webhook endpoints (docs/webhooks.md, "Endpoints"): which events an endpoint takes,
// and the limits of the merchant-facing API. Pure and workflow-safe.
import { SHAPE_B_VERSION } from './api-versions';
import { EVENT_TYPES } from './events';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** A webhook endpoint as the API shows it (never with its secret: that is passed on its own). */
export interface WebhookEndpointView {
  id: string;
  livemode: boolean;
  url: string;
  enabledEvents: string[];
  description: string | null;
  apiVersion: string;
  status: WebhookEndpointStatus;
  /** Why a disabled endpoint is: `failing` when the service disabled it (3 days without a 2xx); else null. */
  disabledReason: 'failing' | null;
  /** Unix seconds. */
  createdAt: number;
}

/** Endpoints per merchant and mode, deleted ones not counted. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
export const MAX_ENDPOINT_DESCRIPTION = 500;
export const MAX_ENDPOINT_URL = 2048;
/** `rotate_secret`'s grace period: default one day, at most seven. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
export const MAX_ROTATION_GRACE_SECONDS = 604_800;

export const ALL_EVENTS = '*';

/** What `enabled_events` may hold: the event types, or `*` for every type (now and later). */
export function isEnabledEventName(value: string): boolean {
  return value === ALL_EVENTS || (EVENT_TYPES as readonly string[]).includes(value);
}

/** Whether an endpoint with this filter takes an event of `type`. */
export function endpointTakes(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.includes(ALL_EVENTS) || enabledEvents.includes(type);
}

/** The stored filter: distinct names in the order given (`*` alone when it is among them). */
export function normalizeEnabledEvents(names: readonly string[]): string[] {
  return names.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(names)];
}

/**
 * Which recorded body of an event an endpoint on `apiVersion` receives: on 2024-06-01 the one with
 * the Shape B payment, when the event has one (payment events); else the Shape A body.
 */
export function bodyForVersion(event: { payload: string; payload_b: string | null }, apiVersion: string | null): string {
  return apiVersion === SHAPE_B_VERSION && event.payload_b !== null ? event.payload_b : event.payload;
}

/**
 * After attempt `attempt` of a delivery failed, how long until the next (the delivery workflow's
 * schedule: the initial delay doubling up to an hour).
 */
export function retryDelaySeconds(initialRetrySeconds: number, attempt: number): number {
  return Math.min(initialRetrySeconds * 2 ** Math.max(0, attempt - 1), 3600);
}

/** The most a circuit's probe is put back beyond its step: a fifth of it. */
export const RETRY_JITTER = 0.2;

/**
 * The delay to a failing endpoint's next probe (ms): its step, and up to a fifth more, so that the
 * circuits one outage opened together do not probe together. Never less than the step: an endpoint
 * still gets at most one attempt per step.
 */
export function retryDelayMs(initialRetrySeconds: number, attempt: number, random: () => number = Math.random): number {
  return Math.round(retryDelaySeconds(initialRetrySeconds, attempt) * 1000 * (1 + RETRY_JITTER * random()));
}
