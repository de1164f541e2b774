/** The Protobuf representation: wire model, `.proto` generation, conversion and the envelope codec. */
export * from './model.js';
export * from './proto-text.js';
export * from './compiled.js';
export * from './codec.js';
export * from './support.js';
export * from './watch-frames.js';
