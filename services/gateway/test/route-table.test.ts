import { describe, expect, it } from '@jest/globals';
import { matchRoute, pathExists, ROUTES } from '../src/http/route-table.js';

describe('the gateway route table', () => {
  it('finds the rule of every operation for a concrete path, with or without a trailing slash, HEAD as GET', () => {
    for (const rule of ROUTES) {
      const concrete = rule.path.replace(/\{[^}]+\}/g, '3f2a9c1e-0000-4000-8000-000000000001');
      for (const p of [concrete, `${concrete}/`]) {
        const found = matchRoute(rule.method.toUpperCase(), p);
        expect(found?.method).toBe(rule.method);
        // The operation found may only differ when an earlier template matches the same path.
        if (found !== rule) expect(ROUTES.indexOf(found!)).toBeLessThan(ROUTES.indexOf(rule));
      }
      if (rule.method === 'get') expect(matchRoute('HEAD', concrete)?.method).toBe('get');
    }
  });

  it('finds nothing for unknown paths or methods, and knows which paths exist for another method', () => {
    expect(matchRoute('GET', '/api/nothing-here')).toBeUndefined();
    expect(matchRoute('GET', '/api/tester/available-jobs/extra')).toBeUndefined();
    expect(matchRoute('DELETE', '/api/tester/available-jobs')).toBeUndefined();
    expect(pathExists('/api/tester/available-jobs')).toBe(true);
    expect(pathExists('/api/nothing-here')).toBe(false);
    expect(matchRoute('GET', '/api/tester/available-jobs')?.service).toBe('jobs');
  });
});
