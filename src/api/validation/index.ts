export * from './field-errors.js';
export * from './names.js';
export * from './quantity.js';
export * from './object-meta.js';
export * from './schema.js';
export * from './unknown-fields.js';
