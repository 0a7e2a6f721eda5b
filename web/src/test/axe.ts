import axe from 'axe-core';

/**
 * axe-core over a rendered component in jsdom: the WCAG 2.1 AA and best-practice rules the
 * browser audits (web/e2e) use, minus what jsdom cannot judge (colour contrast: no layout) and
 * the page-level rules a component alone cannot meet (landmarks, the page's h1). For screens the
 * e2e products cannot reach cheaply (a tester paused by strikes). Answers "rule: target" per
 * finding of impact moderate or worse.
 */
export async function axeFindings(root: Element): Promise<string[]> {
  const result = await axe.run(root, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    rules: {
      'color-contrast': { enabled: false },
      region: { enabled: false },
      'landmark-one-main': { enabled: false },
      'page-has-heading-one': { enabled: false },
    },
  });
  return result.violations
    .filter((v) => v.impact !== 'minor')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}
