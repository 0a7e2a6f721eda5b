/**
 * The style sheet parses: one unclosed block (a merge once dropped a `}`) silently turns every
 * later rule into a nested one the browser ignores, and neither the build nor the type check
 * says so. The poster's webhooks and issue-tracker sections lost all their spacing that way.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import postcss from 'postcss';

const file = new URL('./app.css', import.meta.url);

describe('app.css', () => {
  it('parses without an unclosed block or a stray brace', () => {
    expect(() => postcss.parse(readFileSync(file, 'utf8'), { from: file.pathname })).not.toThrow();
  });

  it('keeps every rule at the top level or inside an at-rule (no rule nested in a rule)', () => {
    const root = postcss.parse(readFileSync(file, 'utf8'), { from: file.pathname });
    const nested: string[] = [];
    root.walkRules((rule) => {
      if (rule.parent?.type === 'rule')
        nested.push(`${rule.selector} (line ${rule.source?.start?.line})`);
    });
    expect(nested).toEqual([]);
  });
});
