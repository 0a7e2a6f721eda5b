export * from './catalogue.js';
export * from './envelope.js';
export * from './bus.js';
export * from './redis-streams.js';
export * from './kafka.js';
export * from './outbox.js';
export * from './runtime.js';
export * from './service-host.js';
