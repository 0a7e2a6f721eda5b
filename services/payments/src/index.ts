export { startPayments } from './main.js';
