import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { errorMiddleware, createLogger, listen, mintServiceToken, requireServiceToken, type RunningServer } from '../src/index.js';

const CURRENT = 'current-secret-current-secret-current-secret';
const PREVIOUS = 'previous-secret-previous-secret-previous-secr';
let server: RunningServer;

beforeAll(async () => {
  const app = express();
  app.post('/internal/x', requireServiceToken([CURRENT, PREVIOUS], ['jobs']), (_req, res) => void res.json({ ok: true }));
  app.use(errorMiddleware(createLogger('t', 'silent')));
  server = await listen(app);
});
afterAll(async () => {
  await server?.close();
});

const call = async (token?: string) => {
  const res = await fetch(`${server.url}/internal/x`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as { detail?: string; code?: string } };
};

describe('internal service tokens', () => {
  it('admits the named caller signed with the current or the previous secret (rotation)', async () => {
    expect((await call(await mintServiceToken(CURRENT, 'jobs'))).status).toBe(200);
    expect((await call(await mintServiceToken(PREVIOUS, 'jobs'))).status).toBe(200);
  });
  it('refuses a missing token, an unknown secret and a caller not on the list', async () => {
    expect(await call()).toEqual({ status: 401, body: { detail: 'Service token required.', code: 'service_token_required' } });
    expect((await call(await mintServiceToken('some-other-secret-some-other-secret-1234', 'jobs'))).body.code).toBe('invalid_service_token');
    expect((await call(await mintServiceToken(CURRENT, 'admin'))).status).toBe(403);
  });
});
