import { describe, expect, it } from '@jest/globals';
import { machineFindingsMatching, type SiteCheckFinding } from './site-check.js';

const f = (
  key: string,
  topic: SiteCheckFinding['topic'],
  rule: string | null = null,
): SiteCheckFinding => ({
  key,
  topic,
  impact: 'serious',
  count: 1,
  sizes: ['phone'],
  rule,
  text: key,
});

const machine = [
  f('a11y:image-alt', 'accessibility', 'image-alt'),
  f('a11y:color-contrast', 'accessibility', 'color-contrast'),
  f('speed:lcp:phone', 'speed'),
  f('stability:cls:phone', 'stability'),
  f('links:broken', 'links'),
  f('errors:exceptions', 'errors'),
];

describe('a machine finding that matches a human one (the verdict hook)', () => {
  it('matches by the words a person uses', () => {
    const keys = (text: string) => machineFindingsMatching(text, machine).map((m) => m.key);
    expect(keys('The page was really slow to load on my phone')).toEqual(['speed:lcp:phone']);
    expect(keys('The grey text on the pricing page is hard to read')).toEqual([
      'a11y:color-contrast',
    ]);
    expect(keys('The menu jumps around while the page loads')).toEqual(['stability:cls:phone']);
    expect(keys('The "Contact" link goes to a 404 page')).toEqual(['links:broken']);
    expect(keys('My screen reader says "image" for every product picture')).toEqual([
      'a11y:image-alt',
    ]);
  });

  it('matches nothing for a finding about something else', () => {
    expect(
      machineFindingsMatching('I could not find the price of the premium plan', machine),
    ).toEqual([]);
    expect(machineFindingsMatching('anything', [])).toEqual([]);
  });
});
