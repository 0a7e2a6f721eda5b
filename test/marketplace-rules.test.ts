/**
 * #29 "derive, don't copy": the marketplace's rules are stated once, in
 * packages/contracts/src/marketplace.ts. This test reads every source file of the services and the
 * web app (tests, migrations and the module itself excepted) and fails on a literal copy of a rule
 * the module owns: the money split in cents (and in words: "$0.82", "18%"), the windows in words
 * ("48 hours", "96 hours"), a geo rule's name or admission list, the assistive technology list, the
 * strike limit, the revision limit, the top-rated threshold. Pure: no servers.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODULE = 'packages/contracts/src/marketplace.ts';

/** Each rule the module owns, and what a copy of it looks like in code. */
export const COPIES: Array<{ rule: string; pattern: RegExp }> = [
  {
    rule: 'money (cents): PRICE_PER_TEST_CENTS / TESTER_SHARE_CENTS / PLATFORM_FEE_CENTS',
    pattern: /\b\w*(amount|budget|price|share|fee|earning)\w*\s*[:=]\s*(82|18|100)\b(?!\s*\*)/i,
  },
  {
    rule: 'money (cents): PRICE_PER_TEST_CENTS / TESTER_SHARE_CENTS / PLATFORM_FEE_CENTS',
    pattern: /\?\?\s*(82|18)\b/,
  },
  {
    rule: 'money (cents): PRICE_PER_TEST_CENTS / TESTER_SHARE_CENTS / PLATFORM_FEE_CENTS',
    pattern: /cents'\)[^\n]*\.default\((82|18|100)\)/i,
  },
  {
    rule: 'geo rules: GEO_RULES / DEFAULT_GEO_RULE / geoAllows',
    pattern: /['"`](us_pr|us_pr_ca|global_beta)['"`]/,
  },
  {
    rule: 'geo admission: GEO_ADMISSION / USER_COUNTRIES',
    pattern: /\[\s*'US',\s*'PR'(,\s*'CA')?\s*\]/,
  },
  { rule: 'assistive technology: ASSISTIVE_TECH', pattern: /'screen_reader',\s*'keyboard_only'/ },
  {
    rule: 'strike limit: DEFAULT_STRIKE_LIMIT, announced as strikeLimit',
    pattern: /strikes?\W[^\n]{0,30}>=\s*\d/i,
  },
  {
    rule: 'strike limit: DEFAULT_STRIKE_LIMIT, announced as strikeLimit',
    pattern: /STRIKE_LIMIT[^\n]*\.default\(\d+\)/,
  },
  { rule: 'revision limit: REVISION_LIMIT', pattern: /REVISIONS?\w*\s*=\s*\d/ },
  {
    rule: 'top-rated threshold: TOP_RATED / isTopRated',
    pattern: /minAvgTenths\s*:\s*\d|>=\s*4\.5\b/,
  },
  {
    rule: 'money in words: RULE_WORDS (formatUsd of the cents)',
    pattern: /\$0\.(82|18)\b|\b18%/,
  },
  {
    rule: 'windows in words: RULE_WORDS (formatHours of WINDOWS_MS)',
    pattern: /(?<![-\d])\b(48|96) hours\b/,
  },
  {
    rule: 'levels: TRUSTED / testerLevel / PRIORITY_LEVELS',
    pattern: /minAcceptancePct\s*:\s*\d|PRIORITY_LEVELS\s*[:=]\s*\[|level\s*===\s*'top'/,
  },
];

/** The copies of a rule in one file's text: "line: rule". */
export function ruleCopies(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may name the rule
    for (const c of COPIES)
      if (c.pattern.test(line)) found.push(`${i + 1}: ${c.rule}: ${line.trim()}`);
  });
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory())
      return ['node_modules', 'migrations', 'test', 'dist'].includes(name) ? [] : sources(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')
      ? [p]
      : [];
  });
}

describe('the marketplace rules are stated once', () => {
  it('finds no copy of a rule in the services or the web app', () => {
    const dirs = [
      ...readdirSync(path.join(ROOT, 'services')).map((s) => path.join(ROOT, 'services', s, 'src')),
      path.join(ROOT, 'web/src'),
      path.join(ROOT, 'packages'),
    ];
    const copies = dirs
      .flatMap((d) => sources(d))
      .filter((f) => path.relative(ROOT, f) !== MODULE)
      .flatMap((f) =>
        ruleCopies(readFileSync(f, 'utf8')).map((c) => `${path.relative(ROOT, f)}:${c}`),
      );
    expect(copies).toEqual([]);
  });

  it.each([
    ['notifications amount', '        amountCents: 82,'],
    ['fallback amount', 'subject: `You earned ${usd(d.amountCents ?? 82)}`,'],
    ['post-job price', '      budgetCents: 100,'],
    ['schema default', "    budgetCents: integer('budget_cents').notNull().default(100),"],
    ['geo rule name', "  if (geoRule === 'us_pr_ca') return admitted;"],
    ['admission list', "  us_pr: ['US', 'PR'],"],
    [
      'assistive list',
      "const assistiveTech = z.enum(['screen_reader', 'keyboard_only', 'captions']);",
    ],
    [
      'strike SQL',
      'approved: sql`CASE WHEN ${users.strikes} + 1 >= 3 THEN false ELSE ${users.approved} END`,',
    ],
    ['strike config', 'TESTER_STRIKE_LIMIT: z.coerce.number().int().min(1).default(3),'],
    ['revision limit', 'export const MAX_REVISIONS = 1;'],
    ['top rated', 'export const TOP_RATED = { minCount: 3, minAvgTenths: 45 } as const;'],
    ['trusted level', 'export const TRUSTED = { minJobs: 5, minAcceptancePct: 80 } as const;'],
    ['priority by level', "  const early = standing.level === 'top';"],
    ['earning in words', '              <span className="price">$0.82</span>'],
    ['fee in words', "    a: 'the platform keeps an 18% fee',"],
    [
      'revision window in words',
      "        : 'Revision requested. The tester has 48 hours to resubmit.',",
    ],
    ['auto-accept in words', '          or automatically after 96 hours.'],
  ])('recognises a copy: %s', (_name, line) => {
    expect(ruleCopies(line)).toHaveLength(1);
  });

  it('leaves derived values, sizes and comments alone', () => {
    for (const line of [
      '        amountCents: TESTER_SHARE_CENTS,',
      'TESTER_STRIKE_LIMIT: z.coerce.number().int().min(1).default(DEFAULT_STRIKE_LIMIT),',
      '  videoMaxBytes: 100 * 1024 * 1024,',
      ' * SubmissionAccepted: the tester earns 82 cents',
      "  us_pr_ca: 'US, PR & CA',",
      'const limit = 100;',
      "    a: 'Usually within 24-48 hours (compared with 3-7 days elsewhere).',",
      '        <small>Test sites, earn {RULE_WORDS.testerShare} per job</small>',
    ]) {
      expect([line, ruleCopies(line)]).toEqual([line, []]);
    }
  });
});
