/** Public API of src/codec: request body decoding, content negotiation and the Table representation. */
export * from './body.js';
export * from './negotiation.js';
export * from './table.js';
