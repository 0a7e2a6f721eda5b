import { readFileSync } from 'node:fs';
import '../test/setup';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { useNotify } from '../lib/hooks';
import { renderWithStore } from '../test/render';
import { axeFindings } from '../test/axe';
import { mockFetch, resetStorage } from '../test/setup';
import { BeforeAfter } from './before-after';
import { BusyButton } from './busy-button';
import { ErrorBoundary } from './error-boundary';
import { Modal } from './modal';
import { StatusBar } from './status-bar';
import { Table } from './table';
import { toastsBelow } from './toaster';

function ModalHarness() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button onClick={() => setOpen(true)}>Open dialog</button>
      {open ? (
        <Modal title="Send Feedback" onClose={() => setOpen(false)}>
          <input aria-label="First" />
          <button>Last</button>
        </Modal>
      ) : null}
    </>
  );
}

describe('Modal', () => {
  it('moves focus inside, traps Tab, closes on Escape and returns focus to the opener', async () => {
    render(<ModalHarness />);
    const opener = screen.getByRole('button', { name: 'Open dialog' });
    await userEvent.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Send Feedback' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByLabelText('First'));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Last' }));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    await userEvent.tab({ shift: true });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Last' }));
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });
});

describe('ErrorBoundary', () => {
  let spy: ReturnType<typeof jest.spyOn>;
  beforeEach(() => {
    spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => spy.mockRestore());

  it("shows '{label}: {message}' and Retry returns to the normal view", async () => {
    let fail = true;
    function Boom() {
      if (fail) throw new Error('jobs list broke');
      return <p>All good</p>;
    }
    render(
      <ErrorBoundary label="Dashboard error">
        <Boom />
      </ErrorBoundary>,
    );
    expect(screen.getByRole('heading').textContent).toBe('Dashboard error: jobs list broke');
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByText('All good')).toBeTruthy();
  });

  it("says 'Admin error: Unknown error' for an error without a message", () => {
    function Boom(): never {
      throw new Error('');
    }
    render(
      <ErrorBoundary label="Admin error">
        <Boom />
      </ErrorBoundary>,
    );
    expect(screen.getByRole('heading').textContent).toBe('Admin error: Unknown error');
  });
});

describe('toasts and status messages', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  function Notifier() {
    const { toast, status } = useNotify();
    return (
      <>
        <button onClick={() => toast('Failed to load jobs')}>toast</button>
        <button onClick={() => status('Saved.')}>status</button>
        <StatusBar />
      </>
    );
  }

  it('removes a toast after 5 seconds and a status message after 3 seconds', () => {
    renderWithStore(<Notifier />);
    fireEvent.click(screen.getByRole('button', { name: 'status' }));
    expect(screen.getByText('Saved.')).toBeTruthy();
    act(() => jest.advanceTimersByTime(2900));
    expect(screen.getByText('Saved.')).toBeTruthy();
    act(() => jest.advanceTimersByTime(200));
    expect(screen.queryByText('Saved.')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'toast' }));
    expect(screen.getByText('Failed to load jobs')).toBeTruthy();
    act(() => jest.advanceTimersByTime(4900));
    expect(screen.getByText('Failed to load jobs')).toBeTruthy();
    act(() => jest.advanceTimersByTime(200));
    expect(screen.queryByText('Failed to load jobs')).toBeNull();
  });

  it('never shows the status banner and a toast at once', () => {
    renderWithStore(<Notifier />);
    fireEvent.click(screen.getByRole('button', { name: 'status' }));
    fireEvent.click(screen.getByRole('button', { name: 'toast' }));
    expect(screen.getByText('Failed to load jobs')).toBeTruthy();
    expect(screen.queryByText('Saved.')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'status' }));
    expect(screen.getByText('Saved.')).toBeTruthy();
    expect(screen.queryByText('Failed to load jobs')).toBeNull();
  });
});

describe('Table', () => {
  it("labels every cell with its column's name, for the phone layout, also for rows added later", () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => (
        <tr key={i}>
          <td>Job {i}</td>
          <td>open</td>
        </tr>
      ));
    const { rerender } = render(
      <Table caption="Jobs" columns={['Job', 'Status']}>
        {rows(1)}
      </Table>,
    );
    rerender(
      <Table caption="Jobs" columns={['Job', 'Status']}>
        {rows(2)}
      </Table>,
    );
    const cells = screen.getAllByRole('cell');
    expect(cells.map((c) => c.getAttribute('data-label'))).toEqual([
      'Job',
      'Status',
      'Job',
      'Status',
    ]);
  });
});

describe('BusyButton', () => {
  it('says its busy label and is disabled while busy, its label and enabled otherwise', () => {
    const { rerender } = render(
      <BusyButton className="btn" busy={false} busyLabel="Opening…">
        Pay now
      </BusyButton>,
    );
    const button = screen.getByRole('button') as HTMLButtonElement;
    expect(button.textContent).toBe('Pay now');
    expect(button.disabled).toBe(false);
    expect(button.type).toBe('button');
    rerender(
      <BusyButton className="btn" busy busyLabel="Opening…">
        Pay now
      </BusyButton>,
    );
    expect(button.textContent).toBe('Opening…');
    expect(button.disabled).toBe(true);
  });
});

describe('FindingsList (the poster’s results)', () => {
  it('lists findings worst first with their steps and expected/actual', async () => {
    const { FindingsList } = await import('./findings-list');
    const none = { steps: null, expected: null, actual: null, at_ms: null };
    render(
      <FindingsList
        findings={[
          { text: 'Typo in footer', severity: 'cosmetic', ...none },
          { text: 'No severity given', severity: null, ...none },
          {
            text: 'Checkout fails',
            severity: 'blocker',
            ...none,
            steps: 'Pay with a card',
            expected: 'Receipt',
            actual: 'Error 500',
          },
          { text: 'Slow search', severity: 'minor', ...none },
        ]}
      />,
    );
    const items = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual([
      expect.stringContaining('Checkout fails'),
      expect.stringContaining('Slow search'),
      expect.stringContaining('Typo in footer'),
      expect.stringContaining('No severity given'),
    ]);
    expect(items[0]).toContain('Pay with a card');
    expect(screen.getByText('Error 500')).toBeTruthy();
  });
});

describe('RecordingPlayer (the poster’s results)', () => {
  it('puts a marker per pinned finding on the timeline; clicking one seeks the video there', async () => {
    const { RecordingPlayer } = await import('./recording-player');
    const none = { steps: null, expected: null, actual: null };
    render(
      <RecordingPlayer
        recording={{
          id: 'r1',
          url: '/api/recordings/r1?sig=x',
          mime_type: 'video/webm',
          duration_ms: 10_000,
          size_bytes: 1000,
        }}
        findings={[
          { text: 'Cart badge lags', severity: 'major', at_ms: 4_200, ...none },
          { text: 'No moment', severity: null, at_ms: null, ...none },
        ]}
      />,
    );
    const marker = screen.getByRole('button', { name: 'Jump to 0:04: Cart badge lags' });
    expect((marker as HTMLElement).style.left).toBe('42%');
    await userEvent.click(marker);
    const video = document.querySelector('video')!;
    expect(video.currentTime).toBeCloseTo(4.2);
    await userEvent.click(screen.getByRole('button', { name: '2x' }));
    expect(video.playbackRate).toBe(2);
    expect(screen.getByRole('button', { name: '2x' }).getAttribute('aria-pressed')).toBe('true');
  });
});

describe('timeline markers take their finding’s severity colour', () => {
  it('paints a blocker, a major and an unrated marker each its own colour (its CSS module)', async () => {
    const { RecordingPlayer } = await import('./recording-player');
    // The module's class names are its own keys under jest (test-css-module.cjs), as in the markup.
    const css = readFileSync(new URL('./recording-player.module.css', import.meta.url), 'utf8');
    const sheet = document.createElement('style');
    // jsdom does not resolve var(): each custom property becomes a colour of its own.
    const names: string[] = [];
    sheet.textContent = css.replace(/var\((--[\w-]+)\)/g, (_m, name: string) => {
      if (!names.includes(name)) names.push(name);
      return `rgb(${names.indexOf(name)}, 1, 2)`;
    });
    document.head.append(sheet);
    const none = { steps: null, expected: null, actual: null };
    render(
      <RecordingPlayer
        recording={{
          id: 'r2',
          url: '/api/recordings/r2?sig=x',
          mime_type: 'video/webm',
          duration_ms: 10_000,
          size_bytes: 1000,
        }}
        findings={[
          { text: 'Checkout crashes', severity: 'blocker', at_ms: 1_000, ...none },
          { text: 'Cart badge lags', severity: 'major', at_ms: 2_000, ...none },
          { text: 'Odd spacing', severity: null, at_ms: 3_000, ...none },
        ]}
      />,
    );
    const colour = (name: RegExp) =>
      getComputedStyle(screen.getByRole('button', { name })).backgroundColor;
    const blocker = colour(/^Jump to .*Checkout crashes/);
    const major = colour(/^Jump to .*Cart badge lags/);
    const plain = colour(/^Jump to .*Odd spacing/);
    sheet.remove();
    expect(blocker).not.toBe(plain);
    expect(major).not.toBe(plain);
    expect(blocker).not.toBe(major);
  });
});

describe('toastsBelow (where a phone shows the toasts)', () => {
  const phone = (matches: boolean) =>
    Object.defineProperty(window, 'matchMedia', {
      configurable: true,
      value: () => ({ matches }),
    });
  const at = (top: number) => {
    const el = document.createElement('button');
    document.body.append(el);
    el.getBoundingClientRect = () =>
      ({ top, bottom: top + 40, left: 0, right: 100, width: 100, height: 40 }) as DOMRect;
    return el;
  };
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('puts them at the bottom edge when the control in use is in the top half of a phone', () => {
    phone(true);
    Object.defineProperty(window, 'innerHeight', { configurable: true, value: 800 });
    const top = at(50);
    top.focus();
    expect(toastsBelow(null)).toBe(true);
    const low = at(700);
    low.focus();
    expect(toastsBelow(null)).toBe(false);
    // Nothing focused (a busy button disabled itself): the last control touched counts.
    low.blur();
    expect(toastsBelow(top)).toBe(true);
    expect(toastsBelow(null)).toBe(false);
  });

  it('keeps them in their corner on a wide screen', () => {
    phone(false);
    at(50).focus();
    expect(toastsBelow(null)).toBe(false);
  });
});

describe('Before / after (a re-test beside the first test)', () => {
  it('shows the checklist and key findings side by side in its dialog, with no axe finding', async () => {
    resetStorage();
    mockFetch((c) =>
      c.url === '/api/jobs/j2/before-after'
        ? {
            body: {
              job_id: 'j2',
              retest_of: 'j1',
              before: null,
              after: null,
              requirements: [
                {
                  requirement_index: 0,
                  requirement: 'Checkout works',
                  before: 'Card field rejects spaces',
                  after: null,
                },
              ],
              key_findings: [{ index: 0, before: 'Pay button hidden on phones', after: null }],
            },
          }
        : { body: {} },
    );
    renderWithStore(
      <Modal title="Before / after: Bakery" onClose={() => undefined}>
        <BeforeAfter jobId="j2" />
      </Modal>,
    );
    expect(
      await screen.findByRole('table', { name: 'Checklist: first test and re-test' }),
    ).toBeTruthy();
    expect(screen.getByText('Card field rejects spaces')).toBeTruthy();
    expect(screen.getAllByText('Not re-tested yet').length).toBeGreaterThan(0);
    expect(await axeFindings(document.body)).toEqual([]);
  });
});
