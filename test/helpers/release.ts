// Whether the service has had its first release (version 1.0.0 in package.json). Until then no run
// of workflow code exists outside tests, so workflow changes carry no patches (docs/operations.md).
import { version } from '../../package.json';

export const RELEASED = Number(version.split('.')[0]) >= 1;
