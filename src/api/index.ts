/** Public API of src/api: the one description per kind, selectors, validation and the registry. */
export * from './status.js';
export * from './types.js';
export * from './meta.js';
export * from './json-walk.js';
export * from './duration.js';
export * from './time.js';
export * from './labels.js';
export * from './fields.js';
export * from './validation/index.js';
export * from './kinds/index.js';
export * from './registry.js';
export * from './versions.js';
export * from './crd-definition.js';
export type * from './generated/kinds.js';
export type * from './kind-parts.js';
export { generateKindTypes, kindTypeName } from './type-generator.js';
