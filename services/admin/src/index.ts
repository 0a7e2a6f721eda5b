export { startAdmin } from './main.js';
