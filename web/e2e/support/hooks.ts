/** Jest hooks shared by the browser tests (kept apart from product.ts, which bench/web also uses). */
import { afterAll, beforeAll } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { launchBrowser, startProduct, type Product } from './product.js';

/**
 * Starts the product (`npm start`) and Chromium before the file's tests and stops both after
 * them; the returned object holds them once the tests run.
 */
export function productInBrowser(env: Record<string, string> = {}): {
  product: Product;
  browser: Browser;
} {
  const run = {} as { product: Product; browser: Browser };
  beforeAll(async () => {
    run.product = await startProduct(undefined, env);
    run.browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await run.browser?.close();
    await run.product?.stop();
  }, 30_000);
  return run;
}
