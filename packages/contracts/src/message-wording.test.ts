/**
 * One wording for every length limit a person can hit (issue #31, item 15): "<Field> must be N
 * characters or less", "… must be at least N characters", "… must be N to M characters"; the
 * spec's own texts stay exactly as the spec gives them. And every string field's limit has its own
 * message naming that limit (never zod's "Too big: expected string to have <=N characters").
 */
import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import * as contracts from './index.js';

/** The spec's texts (product-spec.md section 9), kept word for word. */
const SPEC_TEXTS = new Set([
  'Feedback must be less than 1000 characters',
  'Key finding must be less than 120 characters',
  'At least one key finding (min 5 characters) is required',
  'Please provide more detailed responses (at least 10 characters each).',
  'Key finding 1 must be 100 characters or less',
  'File size must be less than 10MB',
]);

const LENGTH_PATTERNS = [
  /^[A-Z][^.]* must be \d+ characters or less$/,
  /^[A-Z][^.]* must be at least \d+ characters( \(or leave it empty\))?$/,
  /^[A-Z][^.]* must be \d+ to \d+ characters( \(or leave it empty\))?$/,
  /^[A-Z][^.]* must be less than \d+MB$/,
  // A quota of stored bytes (recordings), not a field's length: "… would take more than 1.5 GB."
  /^[A-Z][^.]* would take more than (the )?\d+(\.\d)? (MB|GB)\b/,
];

/** Every text of the exported *_MESSAGES / *Messages objects (functions called with 1). */
function messageTexts(): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(contracts)) {
    if (!/(MESSAGES|Messages)$/.test(name) || !value || typeof value !== 'object') continue;
    for (const v of Object.values(value as Record<string, unknown>)) {
      if (typeof v === 'string') out.push(v);
      else if (typeof v === 'function') {
        const text = (v as (n: number) => unknown)(1);
        if (typeof text === 'string') out.push(text);
      }
    }
  }
  return out;
}

type Def = {
  type: string;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  checks?: Array<{ _zod: { def: { check: string; maximum?: number } } }>;
  shape?: Record<string, Schema>;
};
type Schema = z.ZodType & { _zod: { def: Def } };

/** The string schema inside optional/nullable/default/pipe wrappers, if any. */
function stringOf(s: Schema | undefined): Schema | null {
  for (let i = 0; s && i < 10; i++) {
    const d = s._zod.def;
    if (d.type === 'string') return s;
    if (d.type === 'pipe') s = d.in?._zod.def.type === 'transform' ? d.out : d.in;
    else s = d.innerType;
  }
  return null;
}

/** The largest length a string schema allows, when it has a limit. */
function maxOf(s: Schema): number | null {
  const max = (s._zod.def.checks ?? [])
    .map((c) => c._zod.def as { check: string; maximum?: number })
    .find((c) => c.check === 'max_length');
  return max?.maximum ?? null;
}

describe('validation messages', () => {
  it('say every length limit the same way, the spec texts word for word', () => {
    const odd = messageTexts()
      .filter((t) => /characters|\bMB\b|\d+MB/.test(t))
      .filter((t) => !SPEC_TEXTS.has(t) && !LENGTH_PATTERNS.some((p) => p.test(t)));
    expect(odd).toEqual([]);
  });

  it("name each string field's own limit when a value is one character too long", () => {
    const bad: string[] = [];
    let checked = 0;
    for (const [name, value] of Object.entries(contracts)) {
      const schema = value as Schema;
      if (!/Schema$/.test(name) || schema?._zod?.def?.type !== 'object') continue;
      for (const [key, field] of Object.entries(schema._zod.def.shape ?? {})) {
        const str = stringOf(field);
        const max = str && maxOf(str);
        if (!max) continue;
        checked++;
        const r = schema.safeParse({ [key]: 'x'.repeat(max + 1) });
        const messages = r.success
          ? []
          : r.error.issues.filter((i) => i.path[0] === key).map((i) => i.message);
        // A length message names this limit; other messages (an id or a link that is not valid)
        // may say so without a number; zod's own "Too big" never reaches a person.
        const speaksOfLength = messages.some((m) => /characters/.test(m));
        if (
          !messages.length ||
          messages.some((m) => /too (big|long)/i.test(m)) ||
          (speaksOfLength && !messages.some((m) => m.includes(String(max))))
        )
          bad.push(`${name}.${key} (max ${max}): ${messages.join(' | ') || 'accepted'}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });
});
