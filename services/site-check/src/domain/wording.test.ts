import { describe, expect, it } from '@jest/globals';
import {
  accessibilityText,
  blockedText,
  brokenLinkText,
  clsText,
  exceptionText,
  heavyPageText,
  lcpText,
  tbtText,
} from './wording.js';

describe('plain-language wording of the health check', () => {
  it('says what a missing alt text means, with the count', () => {
    expect(accessibilityText('image-alt', 12, 'Images must have alternative text')).toBe(
      '12 images have no text for screen readers',
    );
    expect(accessibilityText('image-alt', 1, 'x')).toBe('1 image has no text for screen readers');
  });

  it('says how long the main content takes on a phone and what is usual', () => {
    expect(lcpText('phone', 4100)).toBe(
      'The page takes 4.1 s to show its main content on a phone: most sites take under 2.5 s',
    );
    expect(lcpText('desktop', 2600)).toMatch(/on a computer: most sites take under 2\.5 s$/);
  });

  it('words layout shift, blocking time and page weight without jargon', () => {
    expect(clsText('phone', 0.31)).toBe(
      'Parts of the page move while it loads on a phone, so people can tap or click the wrong thing (layout shift 0.31: under 0.1 is good)',
    );
    expect(tbtText('desktop', 1250)).toBe(
      'The page is busy and ignores taps and clicks for 1.3 s while it loads on a computer: under 0.2 s is good',
    );
    expect(heavyPageText('phone', 5.2 * 1024 * 1024)).toBe(
      'The page downloads 5.2 MB on a phone: under 3 MB keeps it quick on slow connections',
    );
  });

  it('falls back to the rule help text for rules it has no sentence for', () => {
    expect(
      accessibilityText('aria-valid-attr', 3, 'ARIA attributes must conform to valid names.'),
    ).toBe('3 elements break an accessibility rule: ARIA attributes must conform to valid names');
  });

  it('shortens a long exception message and counts links and blocked files', () => {
    expect(exceptionText(2, 'x'.repeat(100))).toBe(
      `2 scripts on the page crash while it loads ("${'x'.repeat(77)}...")`,
    );
    expect(brokenLinkText(1)).toBe(
      '1 link on the page leads to a page that does not exist or fails',
    );
    expect(blockedText(1)).toMatch(
      /asks for 1 file from a private network address .*did not fetch it\)$/,
    );
  });
});
