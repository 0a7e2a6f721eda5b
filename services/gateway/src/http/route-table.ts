/** Which service owns each /api route, and who may call it: derived from the one operation catalogue. */
import { OPERATIONS, templateToRegex, type Operation } from '@htm/contracts/routes';

export type { Access, RateClass, ServiceName } from '@htm/contracts/routes';

export interface RouteRule extends Operation {
  pattern: RegExp;
}

export const ROUTES: RouteRule[] = OPERATIONS.map((op) => ({ ...op, pattern: templateToRegex(op.path) }));

/** The rule for a method and path; HEAD is answered like GET. */
export function matchRoute(method: string, path: string): RouteRule | undefined {
  const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  return ROUTES.find((rule) => rule.method === m && rule.pattern.test(path));
}

/** True when the path exists for some other method (answered 405). */
export function pathExists(path: string): boolean {
  return ROUTES.some((rule) => rule.pattern.test(path));
}
