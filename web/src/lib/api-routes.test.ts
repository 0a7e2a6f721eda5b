/**
 * Every HTTP call the web app makes names a route of the shared operation catalogue
 * (@htm/contracts/routes, the same list the gateway routes by). Calls are read from the source.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS, templateToRegex } from '@htm/contracts/routes';
import { LIVE_OPERATIONS } from '@htm/contracts/live';

const src = path.resolve(process.cwd(), 'web/src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}

interface Use {
  method: string;
  path: string;
  where: string;
}

/** `{ url: '/x', method: 'POST' }` in endpoints and rawRequest calls, uploadForm/downloadBlob paths, hrefs. */
function calls(): Use[] {
  const out: Use[] = [];
  for (const file of files(src)) {
    const text = readFileSync(file, 'utf8');
    const where = path.relative(src, file);
    for (const m of text.matchAll(/url:\s*(`[^`]+`|'[^']+')(?:\s*,\s*method:\s*'(\w+)')?/g)) {
      out.push({ method: (m[2] ?? 'GET').toLowerCase(), path: m[1].slice(1, -1), where });
    }
    for (const m of text.matchAll(/uploadForm\(\s*[`']([^`']+)[`']/g))
      out.push({ method: 'post', path: m[1], where });
    for (const m of text.matchAll(/downloadBlob\(\s*[`']([^`']+)[`']/g))
      out.push({ method: 'get', path: m[1], where });
    for (const m of text.matchAll(/href[=:]\s*["'{`]*(\/api\/[^"'`}\s]+)/g))
      out.push({ method: 'get', path: m[1], where });
  }
  return (
    out
      .filter((u) => !u.path.startsWith('http'))
      // `${reportPath(t)}` (features/poster/api/report.ts) is `/jobs/<id>` or `/packs/<id>`: check both.
      .flatMap((u) =>
        u.path.startsWith('${reportPath(')
          ? ['/jobs/X', '/packs/X'].map((base) => ({
              ...u,
              path: u.path.replace(/^\$\{reportPath\([^)]*\)\}/, base),
            }))
          : [u],
      )
      .map((u) => {
        let p = u.path.replace(/\$\{[^}]+\}/g, 'X').replace(/\?.*$/, '');
        if (!p.startsWith('/api/')) p = `/api${p.startsWith('/') ? '' : '/'}${p}`;
        return { ...u, path: p };
      })
  );
}

describe('API calls of the web app', () => {
  const uses = calls();

  it('finds the calls in the source', () => {
    expect(uses.length).toBeGreaterThan(30);
    expect(uses).toContainEqual(
      expect.objectContaining({ method: 'post', path: '/api/jobs/X/submit-work' }),
    );
    expect(uses).toContainEqual(
      expect.objectContaining({ method: 'patch', path: '/api/admin/waitlist/X' }),
    );
  });

  it("only calls routes of the shared operation catalogue (or the gateway's live channel)", () => {
    const known = [...OPERATIONS, ...LIVE_OPERATIONS];
    const unknown = uses.filter(
      (u) => !known.some((op) => op.method === u.method && templateToRegex(op.path).test(u.path)),
    );
    expect(unknown).toEqual([]);
  });
});
