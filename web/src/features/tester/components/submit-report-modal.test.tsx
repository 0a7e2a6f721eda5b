import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import { jobView } from '../../../test/job-view';
import { renderWithStore } from '../../../test/render';
import { fileOf, mockFetch, mockXhr, resetStorage } from '../../../test/setup';
import { SubmitReportModal } from './submit-report-modal';

const job = jobView({
  id: 'job-2',
  title: 'Shop',
  url: 'https://shop.example',
  what_to_test: 'Checkout',
  requirements: ['Find the price', 'Pay'],
});

beforeEach(() => {
  resetStorage();
  setToken('tt');
  mockFetch(() => ({ body: { jobs: [] } }));
});

const submit = () => userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));
const fillRest = async () => {
  await userEvent.type(screen.getByLabelText('Device used'), 'Pixel 7');
  await userEvent.type(screen.getByLabelText('Browser used'), 'Chrome');
  for (const n of [1, 2, 3])
    await userEvent.type(screen.getByLabelText(`Key finding ${n}`), `Finding ${n}`);
};

describe('Submit Work modal (poster-flow)', () => {
  it('asks for at least one response', async () => {
    const { calls } = mockXhr(() => ({ status: 201 }));
    renderWithStore(<SubmitReportModal job={job} onClose={() => undefined} />);
    await fillRest();
    await submit();
    expect(screen.getByRole('alert').textContent).toBe(
      'Please provide at least one response to the requirements before submitting.',
    );
    expect(calls).toHaveLength(0);
  });

  it('keeps refused files selected and refuses to submit without them', async () => {
    const { calls } = mockXhr(() => ({ status: 201 }));
    renderWithStore(<SubmitReportModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('1. Find the price'), 'In the footer, hard to see');
    await fillRest();
    await userEvent.upload(
      screen.getByLabelText(/Screenshots or screen recordings/) as HTMLInputElement,
      fileOf('notes.txt', 'text/plain', 1000),
      { applyAccept: false },
    );
    await submit();
    expect(screen.getByText('Please upload image or video files only')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('asks for more detail when no response reaches 10 characters', async () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(<SubmitReportModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('1. Find the price'), 'footer');
    await fillRest();
    await submit();
    expect(screen.getByRole('alert').textContent).toBe(
      'Please provide more detailed responses (at least 10 characters each).',
    );
  });

  it('requires device, browser and all three key findings', async () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(<SubmitReportModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('1. Find the price'), 'In the footer, hard to see');
    await submit();
    expect(screen.getByText('Device used is required')).toBeTruthy();
    expect(screen.getByText('Browser used is required')).toBeTruthy();
    expect(screen.getByText('Key finding 1 is required')).toBeTruthy();
    expect(screen.getByText('Key finding 2 is required')).toBeTruthy();
    expect(screen.getByText('Key finding 3 is required')).toBeTruthy();
  });

  it('limits device to 50 and key findings to 100 characters', async () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(<SubmitReportModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('1. Find the price'), 'In the footer, hard to see');
    await userEvent.click(screen.getByLabelText('Device used'));
    await userEvent.paste('d'.repeat(51));
    await userEvent.click(screen.getByLabelText('Key finding 2'));
    await userEvent.paste('k'.repeat(101));
    await submit();
    expect(screen.getByText('Device used must be 50 characters or less')).toBeTruthy();
    expect(screen.getByText('Key finding 2 must be 100 characters or less')).toBeTruthy();
  });

  it('accepts images and videos only', async () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(<SubmitReportModal job={job} onClose={() => undefined} />);
    await userEvent.upload(
      screen.getByLabelText(/Screenshots or screen recordings/) as HTMLInputElement,
      fileOf('a.zip', 'application/zip', 10),
      { applyAccept: false },
    );
    expect(screen.getByText('Please upload image or video files only')).toBeTruthy();
  });

  it('sends requirement responses as JSON, the bullets and several files', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    let closed = false;
    renderWithStore(<SubmitReportModal job={job} onClose={() => (closed = true)} />);
    await userEvent.type(screen.getByLabelText('2. Pay'), 'Payment worked first time');
    await userEvent.type(screen.getByLabelText(/General feedback/), 'Nice');
    await fillRest();
    await userEvent.upload(
      screen.getByLabelText(/Screenshots or screen recordings/) as HTMLInputElement,
      [fileOf('a.png', 'image/png', 100), fileOf('b.mp4', 'video/mp4', 100)],
    );
    await submit();
    await waitFor(() => expect(closed).toBe(true));
    const form = calls[0].form;
    expect(calls[0].url).toBe('/api/jobs/job-2/submissions');
    expect(JSON.parse(form.get('requirement_responses') as string)).toEqual([
      { requirement_index: 1, response_text: 'Payment worked first time' },
    ]);
    expect(form.get('device_used')).toBe('Pixel 7');
    expect(form.get('browser_used')).toBe('Chrome');
    expect(form.get('general_feedback')).toBe('Nice');
    expect(form.get('key_findings_bullet_3')).toBe('Finding 3');
    expect(form.getAll('files')).toHaveLength(2);
  });
});

describe("Detailed report in a pack: the 'same problem?' step", () => {
  it('asks after Submit and sends the chosen finding as key_findings_bullet_N_same_as', async () => {
    mockFetch((c) =>
      c.url.endsWith('/api/jobs/job-2/closest-findings')
        ? {
            body: {
              closest: [[], [{ same_as: 'sub-9:1', text: 'Price is hidden', severity: null }], []],
            },
          }
        : { body: { jobs: [] } },
    );
    const { calls } = mockXhr(() => ({ status: 201 }));
    let closed = false;
    renderWithStore(
      <SubmitReportModal job={{ ...job, pack_id: 'pack-2' }} onClose={() => (closed = true)} />,
    );
    await userEvent.type(screen.getByLabelText('1. Find the price'), 'In the footer, hard to see');
    await fillRest();
    await submit();
    await userEvent.click(await screen.findByLabelText(/Same problem as “Price is hidden”/));
    await submit();
    await waitFor(() => expect(closed).toBe(true));
    expect(calls[0].form.get('key_findings_bullet_2_same_as')).toBe('sub-9:1');
  });
});
