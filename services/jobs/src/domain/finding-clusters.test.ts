import { describe, expect, it } from '@jest/globals';
import { clusterFindings, type PackFinding } from './finding-clusters.js';

const f = (jobId: string, text: string, severity: PackFinding['severity'] = null): PackFinding => ({
  jobId,
  text,
  severity,
});

describe('clusterFindings', () => {
  it('puts the same problem written three ways by three testers in one cluster of 3, unrelated findings apart', () => {
    const clusters = clusterFindings([
      f('a', 'The cart button is hidden on mobile', 'major'),
      f('a', 'Checkout page takes ages to load'),
      f('b', 'On my phone the cart button was hidden under the cookie banner', 'blocker'),
      f('b', 'Footer links to the privacy policy are broken', 'minor'),
      f('c', 'Add to cart button hides behind the menu on mobile screens'),
      f('c', 'Search finds nothing for shoes'),
      f('d', 'The checkout button does not work on mobile'),
    ]);
    expect(clusters[0]).toMatchObject({ count: 3, job_ids: ['a', 'b', 'c'] });
    expect(clusters[0].findings.map((x) => x.job_id)).toEqual(['a', 'b', 'c']);
    expect(clusters[0].summary).toMatch(/cart button/i);
    expect(clusters.slice(1).map((c) => c.count)).toEqual([1, 1, 1, 1]);
    // Singles sorted by severity: the minor one before those without a severity.
    expect(clusters[1].summary).toBe('Footer links to the privacy policy are broken');
  });

  it('counts testers, not findings, and answers nothing for no findings', () => {
    expect(clusterFindings([])).toEqual([]);
    const [c] = clusterFindings([
      f('a', 'Login form rejects valid emails'),
      f('a', 'The login form rejects my valid email'),
    ]);
    expect(c.count).toBe(1);
    expect(c.findings).toHaveLength(2);
  });
});
