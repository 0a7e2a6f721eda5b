/** Which service owns each /api route, and who may call it: derived from the one operation catalogue. */
import { OPERATIONS, templateToRegex, type Operation } from '@htm/contracts/routes';

export type { Access, RateClass, ServiceName } from '@htm/contracts/routes';

export interface RouteRule extends Operation {
  pattern: RegExp;
}

export const ROUTES: RouteRule[] = OPERATIONS.map((op) => ({
  ...op,
  pattern: templateToRegex(op.path),
}));

const firstMatch = (m: string, path: string) =>
  ROUTES.find((rule) => rule.method === m && rule.pattern.test(path));

/**
 * Rules without path parameters, by method and exact path: most calls are found here at once.
 * Only rules that the in-order scan would pick for their own path, so both ways agree.
 */
const EXACT = new Map(
  ROUTES.filter((r) => !r.path.includes('{') && firstMatch(r.method, r.path) === r).map((r) => [
    `${r.method} ${r.path}`,
    r,
  ]),
);

/** The rule for a method and path; HEAD is answered like GET. */
export function matchRoute(method: string, path: string): RouteRule | undefined {
  const lower = method.toLowerCase();
  const m = lower === 'head' ? 'get' : lower;
  return EXACT.get(`${m} ${path}`) ?? firstMatch(m, path);
}

/** True when the path exists for some other method (answered 405). */
export function pathExists(path: string): boolean {
  return ROUTES.some((rule) => rule.pattern.test(path));
}
