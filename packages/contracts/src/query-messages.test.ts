import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { adminListQuerySchema, adminWaitlistQuerySchema } from './admin.js';
import { signInIntentSchema } from './identity.js';
import { availableJobsQuerySchema } from './jobs.js';

/** What the services answer for a bad query: the messages of the issues, by field. */
function messages(schema: z.ZodType, query: Record<string, unknown>): Record<string, string[]> {
  const r = schema.safeParse(query);
  if (r.success) return {};
  const out: Record<string, string[]> = {};
  for (const i of r.error.issues) (out[i.path.join('.') || '_'] ??= []).push(i.message);
  return out;
}

describe('query-string messages (GET lists answer 400 with these, never zod developer text)', () => {
  const limit = 'limit must be a whole number from 1 to 100';
  it.each([['abc'], [['20', '30']], ['0'], ['101'], ['2.5'], ['']])(
    'available-jobs limit=%j gets the limit message',
    (value) => {
      expect(messages(availableJobsQuerySchema, { limit: value })).toEqual({ limit: [limit] });
    },
  );

  it('available-jobs keeps the default page of 20 and accepts 1 and 100', () => {
    expect(availableJobsQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(availableJobsQuerySchema.parse({ limit: '1' }).limit).toBe(1);
    expect(availableJobsQuerySchema.parse({ limit: '100' }).limit).toBe(100);
  });

  it('a repeated cursor names the cursor', () => {
    expect(messages(availableJobsQuerySchema, { cursor: ['a', 'b'] })).toEqual({
      cursor: ['cursor must be the next_cursor of the previous page'],
    });
  });

  it.each([
    [{ page: 'abc' }, 'page', 'Page must be a whole number of 1 or more'],
    [{ page: ['1', '2'] }, 'page', 'Page must be a whole number of 1 or more'],
    [{ page_size: 'many' }, 'page_size', 'Page size must be a whole number from 1 to 100'],
    [{ page_size: ['5', '10'] }, 'page_size', 'Page size must be a whole number from 1 to 100'],
    [{ export: 'pdf' }, 'export', "Export must be 'csv'"],
    [{ export: ['csv', 'csv'] }, 'export', "Export must be 'csv'"],
    [{ q: ['a', 'b'] }, 'q', 'Search must be one text, given once'],
  ])('admin lists: %j says %s: %s', (query, field, message) => {
    expect(messages(adminListQuerySchema, query)).toEqual({ [field]: [message] });
    expect(messages(adminWaitlistQuerySchema, query)).toEqual({ [field]: [message] });
  });

  it.each([
    [{ kind: ['signup', 'waitlist'] }, 'kind', 'Kind must be signup, job_request or waitlist'],
    [{ approved: 'yes' }, 'approved', 'Approved must be true or false'],
    [{ role: 'boss' }, 'role', 'Unknown role'],
  ])('admin waitlist: %j says %s: %s', (query, field, message) => {
    expect(messages(adminWaitlistQuerySchema, query)).toEqual({ [field]: [message] });
  });

  it.each([['admin'], [['poster', 'tester']]])(
    'sign-in intent=%j says which intents exist',
    (intent) => {
      const r = signInIntentSchema.safeParse(intent);
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).toEqual(['intent must be poster or tester']);
    },
  );
});
