// The API version dates (docs/api-reference.md, "Versions and shapes"). Pure, so that the domain
// and data access can name them; src/representations/versions.ts says what each selects.
export const SHAPE_B_VERSION = '2024-06-01';
export const SHAPE_A_VERSION = '2025-09-01';
