import { beforeEach, describe, expect, it } from '@jest/globals';
import { fireEvent, screen } from '@testing-library/react';
import type { SiteCheckResponse } from '@htm/contracts/site-check';
import { renderWithStore } from '../test/render';
import { mockFetch, resetStorage, type Call } from '../test/setup';
import { axeFindings } from '../test/axe';
import { setToken } from '../lib/tokens';
import { HealthCheck, HealthCheckDisclosure } from './health-check';

const done = (): SiteCheckResponse => ({
  job_id: 'j1',
  state: 'done',
  status: 'complete',
  url: 'https://shop.example/',
  checked_at: '2026-03-01T09:00:00Z',
  failure: null,
  summary: {
    url: 'https://shop.example/',
    final_url: 'https://shop.example/',
    links_checked: 3,
    broken_links: 1,
    blocked_requests: 0,
    sizes: (['phone', 'desktop'] as const).map((size) => ({
      size,
      width: size === 'phone' ? 390 : 1280,
      accessibility: { critical: 12, serious: 0, moderate: 0, minor: 0 },
      performance: { score: size === 'phone' ? 58 : 91, lcp_ms: 4100, cls: 0.01, tbt_ms: 20 },
      console_errors: 0,
      uncaught_exceptions: 0,
      failed_requests: 0,
      broken_images: 0,
      page_bytes: 900_000,
      requests: 20,
    })),
    findings: [
      {
        key: 'a11y:image-alt',
        topic: 'accessibility',
        impact: 'critical',
        count: 12,
        sizes: ['phone', 'desktop'],
        rule: 'image-alt',
        text: '12 images have no text for screen readers',
      },
    ],
  },
  sizes: (['phone', 'desktop'] as const).map((size) => ({
    size,
    width: size === 'phone' ? 390 : 1280,
    height: 800,
    screenshot: 'data:image/jpeg;base64,AAAA',
    accessibility: [],
    performance: null,
    console_errors: [],
    exceptions: [],
    failed_requests: [],
    broken_images: [],
    layout_shift: 0,
    long_tasks_ms: 0,
    page_bytes: 900_000,
    requests: 20,
  })),
  links: { checked: 3, broken: [{ url: 'https://shop.example/old', status: 404 }] },
  blocked: [],
});

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe('Health check', () => {
  it("shows the owner the machine's findings in plain words, the speed scores and both screenshots", async () => {
    const { calls } = mockFetch(() => ({ body: done() }));
    const { container } = renderWithStore(<HealthCheck jobId="j1" />);
    expect(await screen.findByText('12 images have no text for screen readers')).toBeTruthy();
    expect(
      screen.getByText('Speed score out of 100: 58 on a phone, 91 on a computer.'),
    ).toBeTruthy();
    expect(screen.getByAltText('The page as the check saw it on a phone')).toBeTruthy();
    expect(screen.getByAltText('The page as the check saw it on a computer')).toBeTruthy();
    expect(calls[0].url).toMatch(/\/api\/jobs\/j1\/site-check$/);
    expect(await axeFindings(container)).toEqual([]);
  });

  it('tells the tester to look where a machine cannot, once opened', async () => {
    mockFetch(() => ({ body: done() }));
    renderWithStore(
      <HealthCheckDisclosure jobId="j1" audience="tester" summary="Before you start" />,
    );
    fireEvent.click(screen.getByText('Before you start'));
    const details = screen.getByText('Before you start').closest('details')!;
    details.open = true;
    fireEvent(details, new Event('toggle'));
    expect(await screen.findByText(/Spend your time where a machine cannot look/)).toBeTruthy();
    expect(await screen.findByText('12 images have no text for screen readers')).toBeTruthy();
    // The summary names it already: the section's title is there for screen readers only.
    expect(screen.getByRole('heading', { name: 'Health check' }).className).toBe('sr-only');
  });

  it('lists the worst 8 findings and the rest on demand', async () => {
    const many = done();
    many.summary!.findings = Array.from({ length: 11 }, (_, i) => ({
      ...many.summary!.findings[0],
      key: `k${i}`,
      text: `Finding number ${i + 1}`,
    }));
    mockFetch(() => ({ body: many }));
    const { container } = renderWithStore(<HealthCheck jobId="j1" />);
    expect(await screen.findByText('Finding number 8')).toBeTruthy();
    expect(screen.queryByText('Finding number 9')).toBeNull();
    const more = screen.getByRole('button', { name: 'Show 3 more findings' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(more);
    expect(screen.getByText('Finding number 11')).toBeTruthy();
    expect(
      screen.getByRole('button', { name: 'Show the first 8 only' }).getAttribute('aria-expanded'),
    ).toBe('true');
    expect(await axeFindings(container)).toEqual([]);
  });

  it('says the check is on its way before it exists, and why it could not run', async () => {
    mockFetch((c: Call) =>
      c.url.includes('/jobs/new/')
        ? { status: 404, body: { detail: 'no', code: 'site_check_not_found' } }
        : {
            body: {
              ...done(),
              state: 'unavailable',
              status: null,
              summary: null,
              sizes: [],
              failure: {
                reason: 'unavailable',
                text: 'The machine health check is unavailable on this server.',
                detail: null,
              },
            },
          },
    );
    renderWithStore(
      <>
        <HealthCheck jobId="new" />
        <HealthCheck jobId="old" />
      </>,
    );
    expect(await screen.findByText(/A machine is about to check the site/)).toBeTruthy();
    expect(
      await screen.findByText('The machine health check is unavailable on this server.'),
    ).toBeTruthy();
  });
});
