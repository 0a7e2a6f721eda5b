/** The API as a browser test's setup uses it: calls with a bearer token, and approved testers. */
import { expect } from '@jest/globals';
import { signIn as devSignIn } from '@htm/identity/testing';

/** API helpers for the product at `baseUrl()` (known once the file's product has started). */
export function productApi(baseUrl: () => string) {
  async function api(token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return {
      status: res.status,
      body: (await res.json().catch(() => ({}))) as Record<string, unknown>,
    };
  }

  /**
   * A US tester with a country, approved by the admin, before their browser signs in; answers a
   * token issued after the approval (the first one is stale then).
   */
  async function approvedTester(email: string, name = 'Tess'): Promise<string> {
    const { token } = await devSignIn(baseUrl(), email, { name });
    const init = await api(token, 'POST', '/api/users/init', {
      type: 'tester',
      location: 'USA',
      country: 'US',
    });
    expect([200, 201]).toContain(init.status);
    const me = await api(init.body.access_token as string, 'GET', '/api/me');
    const admin = await devSignIn(baseUrl(), 'admin@gmail.com', {
      intent: 'poster',
      name: 'Admin',
    });
    expect(
      (
        await api(admin.token, 'PATCH', `/api/admin/approve-tester/${me.body.id as string}`, {
          approved: true,
        })
      ).status,
    ).toBe(200);
    return (await devSignIn(baseUrl(), email, { name, intent: 'tester' })).token;
  }

  return { api, approvedTester };
}
