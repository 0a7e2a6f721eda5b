import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { adminToken, call, startHarness, type AdminHarness } from './support.js';

let h: AdminHarness;
let token: string;

/** Inserted straight into the table (the intake routes are tested elsewhere); oldest first. */
async function seed(
  rows: {
    email: string;
    role: string;
    kind: string;
    name?: string | null;
    url?: string | null;
    note?: string | null;
    approved?: boolean;
  }[],
) {
  for (const r of rows) {
    await h.svc.ctx.dbHandle.query(
      'INSERT INTO admin.waitlist_entries (email, role, kind, name, url, note, approved) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [r.email, r.role, r.kind, r.name ?? null, r.url ?? null, r.note ?? null, r.approved ?? false],
    );
  }
}

beforeAll(async () => {
  h = await startHarness('admin_lists');
  token = await adminToken(h);
  // 12 tester signups, 7 job requests, 2 waitlist entries.
  await seed(
    Array.from({ length: 12 }, (_, i) => ({
      email: `signup${String(i).padStart(2, '0')}@gmail.com`,
      role: 'Tester (student)',
      kind: 'signup',
      name: `Signup ${i}`,
      approved: i % 3 === 0,
    })),
  );
  await seed(
    Array.from({ length: 7 }, (_, i) => ({
      email: `owner${i}@gmail.com`,
      role: 'Site owner',
      kind: 'job_request',
      url: `https://site${i}.example.com`,
      note: `Needs ${i}`,
    })),
  );
  await seed([
    {
      email: 'wait1@outlook.com',
      role: 'tester',
      kind: 'waitlist',
      name: 'Zoë Müller',
      note: 'No Gmail here',
    },
    {
      email: 'percent@outlook.com',
      role: 'tester',
      kind: 'waitlist',
      name: 'Per Cent',
      note: '100%_sure',
    },
  ]);
});
afterAll(async () => {
  await h?.close();
});

describe('GET /api/admin/waitlist: pages and search', () => {
  it('pages signups 10 at a time, newest first, with the total', async () => {
    const p1 = await call(h, 'GET', '/api/admin/waitlist?kind=signup', { token });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ total: 12, page: 1, page_size: 10 });
    expect(p1.body.entries).toHaveLength(10);
    expect(p1.body.entries[0]).toEqual({
      id: expect.any(String),
      email: 'signup11@gmail.com',
      name: 'Signup 11',
      role: 'Tester (student)',
      kind: 'signup',
      url: null,
      note: null,
      approved: false,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const p2 = await call(h, 'GET', '/api/admin/waitlist?kind=signup&page=2', { token });
    expect(p2.body).toMatchObject({ total: 12, page: 2, page_size: 10 });
    expect(p2.body.entries.map((e: { email: string }) => e.email)).toEqual([
      'signup01@gmail.com',
      'signup00@gmail.com',
    ]);
    const past = await call(h, 'GET', '/api/admin/waitlist?kind=signup&page=3', { token });
    expect(past.body).toMatchObject({ entries: [], total: 12 });
  });

  it('pages job requests 5 at a time by default, and honours page_size', async () => {
    const jr = await call(h, 'GET', '/api/admin/waitlist?kind=job_request', { token });
    expect(jr.body).toMatchObject({ total: 7, page: 1, page_size: 5 });
    expect(jr.body.entries).toHaveLength(5);
    expect(jr.body.entries.every((e: { role: string }) => e.role === 'Site owner')).toBe(true);
    const p2 = await call(h, 'GET', '/api/admin/waitlist?kind=job_request&page=2', { token });
    expect(p2.body.entries.map((e: { email: string }) => e.email)).toEqual([
      'owner1@gmail.com',
      'owner0@gmail.com',
    ]);
    const all = await call(h, 'GET', '/api/admin/waitlist?page_size=50', { token });
    expect(all.body).toMatchObject({ total: 21, page_size: 50 });
    expect(all.body.entries).toHaveLength(21);
  });

  it('filters by role and approval', async () => {
    const approved = await call(h, 'GET', '/api/admin/waitlist?approved=true', { token });
    expect(approved.body.total).toBe(4); // signups 0, 3, 6, 9
    const owners = await call(
      h,
      'GET',
      `/api/admin/waitlist?role=${encodeURIComponent('Site owner')}&approved=false`,
      { token },
    );
    expect(owners.body.total).toBe(7);
  });

  it('searches email, name, note and url case-insensitively', async () => {
    const byEmail = await call(h, 'GET', '/api/admin/waitlist?q=SIGNUP1', { token });
    expect(byEmail.body.entries.map((e: { email: string }) => e.email).sort()).toEqual([
      'signup10@gmail.com',
      'signup11@gmail.com',
    ]);
    const byName = await call(
      h,
      'GET',
      `/api/admin/waitlist?q=${encodeURIComponent('zoë müller')}`,
      { token },
    );
    expect(byName.body.entries.map((e: { email: string }) => e.email)).toEqual([
      'wait1@outlook.com',
    ]);
    const byNote = await call(h, 'GET', '/api/admin/waitlist?q=no%20GMAIL', { token });
    expect(byNote.body.total).toBe(1);
    const byUrl = await call(h, 'GET', '/api/admin/waitlist?q=SITE3.example', { token });
    expect(byUrl.body.entries.map((e: { email: string }) => e.email)).toEqual(['owner3@gmail.com']);
    const combined = await call(
      h,
      'GET',
      '/api/admin/waitlist?q=gmail&kind=job_request&page_size=100',
      { token },
    );
    expect(combined.body.total).toBe(7);
  });

  it('treats % and _ in the search as plain characters', async () => {
    const pct = await call(h, 'GET', `/api/admin/waitlist?q=${encodeURIComponent('%')}`, { token });
    expect(pct.body.entries.map((e: { email: string }) => e.email)).toEqual([
      'percent@outlook.com',
    ]);
    const underscore = await call(h, 'GET', `/api/admin/waitlist?q=${encodeURIComponent('%_s')}`, {
      token,
    });
    expect(underscore.body.total).toBe(1);
    const quote = await call(
      h,
      'GET',
      `/api/admin/waitlist?q=${encodeURIComponent("' OR 1=1 --")}`,
      { token },
    );
    expect(quote.status).toBe(200);
    expect(quote.body.total).toBe(0);
  });

  it('answers 400 for bad paging and filter values', async () => {
    for (const qs of [
      'page=0',
      'page=abc',
      'page_size=0',
      'page_size=101',
      'kind=other',
      'approved=maybe',
      'export=xlsx',
      'q=a&q=b',
    ]) {
      const res = await call(h, 'GET', `/api/admin/waitlist?${qs}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
  });
});

describe('GET /api/admin/waitlist?export=csv', () => {
  it('streams a UTF-8 CSV with BOM that parses back, with formula cells made inert', async () => {
    await seed([
      {
        email: 'tricky@gmail.com',
        role: 'Tester (indie/agency)',
        kind: 'signup',
        name: 'O"Brien, Jr.',
        note: '=HYPERLINK("http://x")',
        url: 'https://a.example/?a=1,b=2',
      },
      {
        email: 'multi@gmail.com',
        role: 'Tester (indie/agency)',
        kind: 'signup',
        name: '@admin',
        note: 'line one\nline two, "quoted"\r\nend',
        url: null,
      },
      {
        email: 'plus@gmail.com',
        role: 'Tester (indie/agency)',
        kind: 'signup',
        name: '-1+2',
        note: '+SUM(A1:A9)',
        url: null,
      },
    ]);
    const res = await fetch(
      `${h.url}/api/admin/waitlist?export=csv&role=${encodeURIComponent('Tester (indie/agency)')}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename=waitlist-${today}.csv`,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parse(bytes, { bom: true, columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual([
      'id',
      'created_at',
      'kind',
      'role',
      'email',
      'name',
      'url',
      'note',
      'approved',
    ]);
    const byEmail = Object.fromEntries(rows.map((r) => [r.email, r]));
    expect(rows).toHaveLength(3);
    expect(byEmail['tricky@gmail.com']).toMatchObject({
      name: 'O"Brien, Jr.',
      note: `'=HYPERLINK("http://x")`,
      url: 'https://a.example/?a=1,b=2',
      approved: 'false',
      kind: 'signup',
    });
    expect(byEmail['multi@gmail.com']).toMatchObject({
      name: "'@admin",
      note: 'line one\nline two, "quoted"\r\nend',
      url: '',
    });
    expect(byEmail['plus@gmail.com']).toMatchObject({ name: "'-1+2", note: "'+SUM(A1:A9)" });
  });

  it('exports every matching entry regardless of page size, newest first, honouring search', async () => {
    const res = await fetch(
      `${h.url}/api/admin/waitlist?export=csv&kind=signup&page_size=1&q=SIGNUP`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const rows = parse(Buffer.from(await res.arrayBuffer()), {
      bom: true,
      columns: true,
    }) as Record<string, string>[];
    expect(rows.map((r) => r.email)).toEqual(
      Array.from({ length: 12 }, (_, i) => `signup${String(11 - i).padStart(2, '0')}@gmail.com`),
    );
    expect(rows.filter((r) => r.approved === 'true')).toHaveLength(4);
  });

  it('exports only the header row when nothing matches', async () => {
    const res = await fetch(`${h.url}/api/admin/waitlist?export=csv&q=nobody-matches-this`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.toString('utf8')).toBe(
      '\uFEFFid,created_at,kind,role,email,name,url,note,approved\r\n',
    );
  });

  it('streams exports larger than one read batch', async () => {
    const values = Array.from(
      { length: 1203 },
      (_, i) => `('bulk${i}@gmail.com', 'Tester (9-to-5)', 'signup')`,
    ).join(',');
    await h.svc.ctx.dbHandle.query(
      `INSERT INTO admin.waitlist_entries (email, role, kind) VALUES ${values}`,
    );
    const res = await fetch(
      `${h.url}/api/admin/waitlist?export=csv&role=${encodeURIComponent('Tester (9-to-5)')}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const rows = parse(Buffer.from(await res.arrayBuffer()), {
      bom: true,
      columns: true,
    }) as Record<string, string>[];
    expect(rows).toHaveLength(1203);
    expect(new Set(rows.map((r) => r.email)).size).toBe(1203);
    await h.svc.ctx.dbHandle.query("DELETE FROM admin.waitlist_entries WHERE email LIKE 'bulk%'");
  });
});

describe('GET /api/admin/leads and /api/admin/feedback', () => {
  beforeAll(async () => {
    for (let i = 0; i < 13; i++) {
      const res = await call(h, 'POST', '/api/leads', {
        body: {
          email: `lead${i}@Company.com`,
          message: i === 5 ? 'Need a React DEVELOPER, asap' : `Message ${i}`,
        },
      });
      expect(res.status).toBe(201);
    }
    await call(h, 'POST', '/api/leads', {
      body: { email: 'evil@x.com', message: "=cmd|' /C calc'!A0" },
    });
    for (let i = 0; i < 3; i++)
      await call(h, 'POST', '/api/feedback', {
        body: { email: `fb${i}@gmail.com`, message: `Feedback ${i}`, page_url: '/jobs' },
      });
  });

  it('pages leads 10 at a time with the total and searches email and message', async () => {
    const p1 = await call(h, 'GET', '/api/admin/leads', { token });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ total: 14, page: 1, page_size: 10 });
    expect(p1.body.leads[0]).toEqual({
      id: expect.any(String),
      email: 'evil@x.com',
      message: "=cmd|' /C calc'!A0",
      created_at: expect.any(String),
    });
    const p2 = await call(h, 'GET', '/api/admin/leads?page=2', { token });
    expect(p2.body.leads).toHaveLength(4);
    const q = await call(h, 'GET', '/api/admin/leads?q=react%20developer', { token });
    expect(q.body.leads.map((l: { email: string }) => l.email)).toEqual(['lead5@company.com']);
    const byEmail = await call(h, 'GET', '/api/admin/leads?q=LEAD1', { token });
    expect(byEmail.body.total).toBe(4); // lead1, lead10, lead11, lead12
  });

  it('exports leads as CSV with inert formulas', async () => {
    const res = await fetch(`${h.url}/api/admin/leads?export=csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename=leads-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const rows = parse(Buffer.from(await res.arrayBuffer()), {
      bom: true,
      columns: true,
    }) as Record<string, string>[];
    expect(rows).toHaveLength(14);
    expect(rows[0]).toMatchObject({ email: 'evil@x.com', message: "'=cmd|' /C calc'!A0" });
  });

  it('lists feedback newest first with paging', async () => {
    const res = await call(h, 'GET', '/api/admin/feedback?page_size=2', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(res.body.feedback[0]).toEqual({
      id: expect.any(String),
      email: 'fb2@gmail.com',
      message: 'Feedback 2',
      page_url: '/jobs',
      created_at: expect.any(String),
    });
  });
});
