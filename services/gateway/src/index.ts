export { startGateway } from './main.js';
export type { RunningGateway } from './main.js';
