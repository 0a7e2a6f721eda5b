export { startPayments } from './main.js';
export { loadPaymentsConfig, type PaymentsConfig } from './config.js';
