import { describe, expect, it } from '@jest/globals';
import { withSiteInfo } from './static.js';

describe("the app's HTML carries the operator's details from the gateway's config", () => {
  it('adds a meta tag for each value set, escaped, and nothing for what is not set', () => {
    const html = '<!doctype html><html><head><title>x</title></head><body></body></html>';
    const out = withSiteInfo(html, {
      OPERATOR_NAME: 'Ada & Co "Labs" <LLC>',
      SUPPORT_EMAIL: 'help@ada.example',
    });
    expect(out).toContain(
      '<head><meta name="htm:operator" content="Ada &amp; Co &quot;Labs&quot; &lt;LLC&gt;"><meta name="htm:support-email" content="help@ada.example"><title>',
    );
    expect(out).not.toContain('htm:operator-address');
    expect(withSiteInfo(html, {})).toBe(html);
  });

  it('puts them after the doctype when the page writes no <head>', () => {
    expect(
      withSiteInfo('<!doctype html><title>app</title>', { SUPPORT_EMAIL: 'a@b.example' }),
    ).toBe(
      '<!doctype html><meta name="htm:support-email" content="a@b.example"><title>app</title>',
    );
  });
});
