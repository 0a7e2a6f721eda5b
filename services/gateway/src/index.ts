export { startGateway } from './main.js';
export type { RunningGateway } from './main.js';
export { loadGatewayConfig, type GatewayConfig } from './config.js';
