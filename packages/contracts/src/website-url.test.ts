import { describe, expect, it } from '@jest/globals';
import { isPublicWebUrl, webUrlProblem } from './common.js';
import { JOB_MESSAGES, createJobBodySchema } from './jobs.js';

const job = (url: string) => ({
  title: 'Bakery',
  url,
  what_to_test: 'Order a cake',
  requirements: ['Price?'],
});

describe('the website URL rule (Post New Job form and POST /api/jobs)', () => {
  it.each([
    'https://example.com',
    'http://example.com',
    'https://www.example.co.uk/shop/cakes?size=large&x=1#top',
    'https://example.com:8443/path',
    'http://shop.example.com:8080',
    'https://bakery.example',
    'HTTPS://Example.COM/Path',
    'https://bücher.de/katalog',
    'https://例え.テスト/パス',
    'https://xn--bcher-kva.de',
    'https://my-site.example.org/a%20b',
  ])('accepts %s', (url) => {
    expect(isPublicWebUrl(url)).toBe(true);
    expect(createJobBodySchema.safeParse(job(url)).success).toBe(true);
  });

  it.each([
    // whitespace anywhere (Chromium's URL parser turns a space in the host into %20)
    'https://exa mple.com',
    'https://example.com/a b',
    'https://exa\tmple.com',
    'https://exa\u00a0mple.com',
    'https://exa%20mple.com',
    // not http(s) or not a URL at all
    'example.com',
    'ftp://example.com',
    'javascript:alert(1)',
    'https:example.com',
    'https:/example.com',
    'https://',
    'https://example.com.',
    'https://-bad.example.com',
    'https://example.123',
  ])('refuses %j with the form message', (url) => {
    expect(isPublicWebUrl(url)).toBe(false);
    expect(webUrlProblem(url)).toBe('invalid');
    const r = createJobBodySchema.safeParse(job(url));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['url', JOB_MESSAGES.urlInvalid],
    ]);
  });

  it.each([
    // hosts no tester can open
    'http://localhost',
    'http://localhost:3000/app',
    'http://LOCALHOST.',
    'http://app.localhost',
    'http://a',
    'http://intranet/',
    'http://127.0.0.1',
    'http://127.1',
    'http://0x7f.1',
    'http://10.0.0.5',
    'http://172.16.3.4',
    'http://192.168.1.1:8080',
    'http://169.254.169.254/latest',
    'http://[::1]/',
    'http://[fe80::1]/',
  ])('refuses the local address %j saying local addresses cannot be tested', (url) => {
    expect(isPublicWebUrl(url)).toBe(false);
    expect(webUrlProblem(url)).toBe('local');
    const r = createJobBodySchema.safeParse(job(url));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['url', JOB_MESSAGES.urlLocal],
    ]);
    expect(JOB_MESSAGES.urlLocal).toBe(
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    );
  });

  it('keeps the message of the form', () => {
    expect(JOB_MESSAGES.urlInvalid).toBe(
      'Please enter a valid URL starting with http:// or https://',
    );
  });

  it('trims surrounding blanks before the rule, as the form and the server both do', () => {
    const r = createJobBodySchema.safeParse(job('  https://example.com/  '));
    expect(r.success && r.data.url).toBe('https://example.com/');
  });
});
