// API versions (docs/api-reference.md, "Versions and shapes"): each version date selects one shape
// of the interface.
import { SHAPE_A_VERSION, SHAPE_B_VERSION } from '../domain/api-versions';

export { SHAPE_A_VERSION, SHAPE_B_VERSION };
export const KNOWN_VERSIONS = [SHAPE_B_VERSION, SHAPE_A_VERSION] as const;
export type ApiVersion = (typeof KNOWN_VERSIONS)[number];
export type Shape = 'A' | 'B';

export const DEFAULT_VERSION: ApiVersion = SHAPE_A_VERSION;
const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export function isKnownVersion(value: string): value is ApiVersion {
  return (KNOWN_VERSIONS as readonly string[]).includes(value);
}

export function isWellFormedVersion(value: string): boolean {
  return VERSION_PATTERN.test(value);
}

export function shapeOf(version: ApiVersion): Shape {
  return version === SHAPE_B_VERSION ? 'B' : 'A';
}

export function versionOf(shape: Shape): ApiVersion {
  return shape === 'B' ? SHAPE_B_VERSION : SHAPE_A_VERSION;
}
