import { InitialSchema1763700000000 } from './1763700000000-initial-schema';

/** Every migration in order; listed explicitly so bundling and tsx need no glob loading. */
export const MIGRATIONS = [InitialSchema1763700000000];
