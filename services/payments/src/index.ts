export { startPayments } from './main.js';
export { loadPaymentsConfig, type PaymentsConfig } from './config.js';
export type { LocalProvider } from './providers/local.provider.js';
