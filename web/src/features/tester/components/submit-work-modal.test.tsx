import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setToken } from '../../../lib/tokens';
import { jobView } from '../../../test/job-view';
import { renderWithStore } from '../../../test/render';
import { fileOf, mockFetch, mockXhr, resetStorage } from '../../../test/setup';
import { SubmitWorkModal } from './submit-work-modal';

const job = jobView();

beforeEach(() => {
  resetStorage();
  setToken('tester-token');
  mockFetch(() => ({ body: { jobs: [] } }));
});

const submit = () => userEvent.click(screen.getByRole('button', { name: 'Submit Work' }));

describe('Submit Work modal (tester dashboard)', () => {
  it('needs feedback of at least 10 characters and one key finding of 5+', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'Too short');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'abcd');
    await submit();
    expect(screen.getByText('Feedback must be at least 10 characters')).toBeTruthy();
    expect(
      screen.getByText('At least one key finding (min 5 characters) is required'),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('rejects feedback over 1000 characters and findings over 120', async () => {
    mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.click(screen.getByLabelText('Feedback'));
    await userEvent.paste('f'.repeat(1001));
    await userEvent.click(screen.getByLabelText(/Key finding 2/));
    await userEvent.paste('k'.repeat(121));
    await submit();
    expect(screen.getByText('Feedback must be less than 1000 characters')).toBeTruthy();
    // The specification's words, for the second finding as for the first.
    expect(screen.getByText('Key finding must be less than 120 characters')).toBeTruthy();
  });

  it('accepts only images for the screenshot, up to 10MB', async () => {
    mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    const input = screen.getByLabelText(/Screenshot/) as HTMLInputElement;
    await userEvent.upload(input, fileOf('notes.pdf', 'application/pdf', 1000), {
      applyAccept: false,
    });
    expect(screen.getByText('Please upload an image file only')).toBeTruthy();
    await userEvent.upload(input, fileOf('big.png', 'image/png', 10 * 1024 * 1024 + 1));
    expect(screen.getByText('File size must be less than 10MB')).toBeTruthy();
    await userEvent.upload(input, fileOf('ok.png', 'image/png', 2000));
    expect(screen.queryByText('File size must be less than 10MB')).toBeNull();
  });

  it('keeps a refused screenshot selected and refuses to submit without it', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    let closed = false;
    renderWithStore(<SubmitWorkModal job={job} onClose={() => (closed = true)} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    const input = screen.getByLabelText(/Screenshot/) as HTMLInputElement;
    await userEvent.upload(input, fileOf('big.png', 'image/png', 10 * 1024 * 1024 + 1));
    await submit();
    expect(screen.getByText('File size must be less than 10MB')).toBeTruthy();
    expect(calls).toHaveLength(0);
    expect(closed).toBe(false);
    await userEvent.upload(input, fileOf('ok.png', 'image/png', 2000));
    await submit();
    await waitFor(() => expect(closed).toBe(true));
    expect((calls[0].form.get('screenshot') as File).name).toBe('ok.png');
  });

  it('refuses a non-empty key finding 2 or 3 under 5 characters', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.type(screen.getByLabelText(/Key finding 2/), 'abc');
    await submit();
    const field = screen.getByLabelText(/Key finding 2/);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    // Its own rule, not the first finding's message.
    expect(
      screen.getByText('Key finding 2 must be at least 5 characters (or leave it empty)'),
    ).toBeTruthy();
    expect(
      screen.queryByText('At least one key finding (min 5 characters) is required'),
    ).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('shows what to test and the things to check, read-only', () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(
      <SubmitWorkModal
        job={{ ...job, requirements: ['Find the price', 'Pay with a test card'] }}
        onClose={() => undefined}
      />,
    );
    const brief = screen.getByRole('region', { name: 'What to test' });
    expect(brief.textContent).toContain('Order a cake');
    expect(Array.from(brief.querySelectorAll('li'), (li) => li.textContent)).toEqual([
      'Find the price',
      'Pay with a test card',
    ]);
    expect(brief.querySelector('input, textarea')).toBeNull();
  });

  it("clears the server's file refusal and field errors when those fields change", async () => {
    mockXhr(() => ({
      status: 415,
      body: { detail: 'Please upload an image file only', code: 'unsupported_file_type' },
    }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'Too short');
    await submit();
    expect(screen.getByText('Feedback must be at least 10 characters')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Feedback'), ' but now it is long enough');
    expect(screen.queryByText('Feedback must be at least 10 characters')).toBeNull();
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    const input = screen.getByLabelText(/Screenshot/) as HTMLInputElement;
    await userEvent.upload(input, fileOf('fake.png', 'image/png', 2000));
    await submit();
    // The server's refusal is shown on the file field itself, which takes the focus.
    await waitFor(() => expect(input.getAttribute('aria-invalid')).toBe('true'));
    const errorId = input.getAttribute('aria-describedby')!.split(' ').pop()!;
    expect(document.getElementById(errorId)!.textContent).toBe('Please upload an image file only');
    await waitFor(() => expect(document.activeElement).toBe(input));
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.upload(input, fileOf('real.png', 'image/png', 3000));
    expect(input.getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByText('Please upload an image file only')).toBeNull();
  });

  it('uploads multipart with the bearer token and shows progress', async () => {
    const { calls, release } = mockXhr(() => ({ status: 201, body: { submission: {}, job: {} } }), {
      hold: true,
    });
    let closed = false;
    renderWithStore(<SubmitWorkModal job={job} onClose={() => (closed = true)} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.upload(
      screen.getByLabelText(/Screenshot/) as HTMLInputElement,
      fileOf('shot.png', 'image/png', 2000),
    );
    await submit();
    expect(await screen.findByText('Uploading… 50%')).toBeTruthy();
    expect(closed).toBe(false);
    release();
    await waitFor(() => expect(closed).toBe(true));
    expect(calls[0].url).toBe('/api/jobs/job-1/submit-work');
    expect(calls[0].method).toBe('POST');
    expect(calls[0].headers.Authorization).toBe('Bearer tester-token');
    expect(calls[0].headers['X-Correlation-Id']).toBeTruthy();
    expect(calls[0].form.get('feedback_text')).toBe('The cart badge lags behind.');
    expect(calls[0].form.get('key_finding_1')).toBe('Cart badge lags');
    expect(calls[0].form.get('key_finding_2')).toBe('');
    expect((calls[0].form.get('screenshot') as File).name).toBe('shot.png');
    // Nothing of the checklist answered: nothing of it sent.
    expect(calls[0].form.get('requirement_responses')).toBeNull();
  });

  it('lets the tester answer any of the things to check, and sends only those answers', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: { submission: {}, job: {} } }));
    renderWithStore(
      <SubmitWorkModal
        job={{ ...job, requirements: ['Find the price', 'Pay with a test card'] }}
        onClose={() => undefined}
      />,
    );
    const group = screen.getByRole('group', { name: 'Answers to the checklist (optional)' });
    expect(group.querySelectorAll('textarea')).toHaveLength(2);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.type(
      screen.getByLabelText(/2\. Pay with a test card/),
      'Paid with 4242, receipt came.',
    );
    await submit();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(JSON.parse(calls[0].form.get('requirement_responses') as string)).toEqual([
      { requirement_index: 1, response_text: 'Paid with 4242, receipt came.' },
    ]);
  });

  it("sends how each thing to check went and a finding's thing to check; half a SUS is refused", async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: { submission: {}, job: {} } }));
    renderWithStore(
      <SubmitWorkModal
        job={{ ...job, requirements: ['Find the price', 'Pay with a test card'] }}
        onClose={() => undefined}
      />,
    );
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.click(screen.getByRole('button', { name: 'Add details to finding 1' }));
    await userEvent.selectOptions(screen.getAllByLabelText(/Thing to check it belongs to/)[0], '1');
    const second = screen.getByRole('radiogroup', { name: 'Did you get it done? (2)' });
    await userEvent.click(within(second).getByLabelText('Not done'));
    await userEvent.selectOptions(
      screen.getAllByLabelText(/Overall, how difficult or easy was this to do\?/)[1],
      '2',
    );
    await userEvent.click(screen.getByText(/Rate the site overall/));
    await userEvent.click(screen.getAllByRole('radio', { name: '4' })[0]);
    await submit();
    expect(
      screen.getByText(
        'The usability questionnaire needs all 10 answers, each a whole number from 1 to 5 (or none)',
      ),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
    const fours = screen.getAllByRole('radio', { name: '4' });
    for (const radio of fours.slice(1)) await userEvent.click(radio);
    await submit();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].form.get('key_finding_1_requirement_index')).toBe('1');
    expect(JSON.parse(calls[0].form.get('task_answers') as string)).toEqual([
      { requirement_index: 1, outcome: 'not_done', seq: 2, minutes: null },
    ]);
    expect(JSON.parse(calls[0].form.get('sus') as string)).toEqual(Array(10).fill(4));
  });

  it('sends the minutes spent when given, and refuses minutes outside 1-240', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: { submission: {}, job: {} } }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.type(screen.getByLabelText(/Minutes spent/), '300');
    await submit();
    expect(screen.getByText('Minutes spent must be a whole number from 1 to 240')).toBeTruthy();
    expect(calls).toHaveLength(0);
    await userEvent.clear(screen.getByLabelText(/Minutes spent/));
    await userEvent.type(screen.getByLabelText(/Minutes spent/), '14');
    await submit();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].form.get('minutes_spent')).toBe('14');
  });

  it("shows the server's detail, else 'Failed to submit work'", async () => {
    mockXhr(() => ({
      status: 409,
      body: { detail: 'This job is no longer yours', code: 'conflict' },
    }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe('This job is no longer yours');
  });

  it('says the draft is kept when the server could not store the file (507), and keeps every field and the file', async () => {
    mockXhr(() => ({
      status: 507,
      body: {
        detail:
          'We could not store your file right now; your draft is kept, try again in a few minutes',
        code: 'storage_full',
      },
    }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    const input = screen.getByLabelText(/Screenshot/) as HTMLInputElement;
    await userEvent.upload(input, fileOf('shot.png', 'image/png', 2000));
    await submit();
    expect((await screen.findByRole('alert')).textContent).toBe(
      'We could not store your file right now; your draft is kept, try again in a few minutes',
    );
    expect((screen.getByLabelText('Feedback') as HTMLTextAreaElement).value).toBe(
      'The cart badge lags behind.',
    );
    expect((screen.getByLabelText('Key finding 1') as HTMLInputElement).value).toBe(
      'Cart badge lags',
    );
    expect(input.files?.[0]?.name).toBe('shot.png');
  });

  it("titles itself 'Resubmit: Quick report' and shows the revision reason and deadline", () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(
      <SubmitWorkModal
        job={{
          ...job,
          status: 'revision_requested',
          last_review: { decision: 'request_revision', reason: 'Check mobile', at: '' },
          revision_deadline_at: '2030-01-01T00:00:00Z',
        }}
        onClose={() => undefined}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Resubmit: Quick report' })).toBeTruthy();
    expect(screen.getByText('Check mobile')).toBeTruthy();
    expect(screen.getByText(/Resubmit by/)).toBeTruthy();
  });

  it('lists the specific issues of the revision request under its reason', () => {
    mockXhr(() => ({ status: 201 }));
    renderWithStore(
      <SubmitWorkModal
        job={{
          ...job,
          status: 'revision_requested',
          last_review: {
            decision: 'request_revision',
            reason: 'Check mobile',
            specific_issues: ['Checkout button not tested', 'No screenshot of the cart'],
            at: '',
          },
          revision_deadline_at: '2030-01-01T00:00:00Z',
        }}
        onClose={() => undefined}
      />,
    );
    const note = screen.getByRole('note');
    expect(note.textContent).toContain('Check mobile');
    expect(Array.from(note.querySelectorAll('li'), (li) => li.textContent)).toEqual([
      'Checkout button not tested',
      'No screenshot of the cart',
    ]);
  });
});

describe('Quick report drafts', () => {
  const revision = jobView({
    status: 'revision_requested',
    last_review: { decision: 'request_revision', reason: 'Check mobile', at: '' },
    revision_deadline_at: '2030-01-01T00:00:00Z',
  });

  it('keeps the draft per job when closed with Esc and asked "Keep editing", and after a reopen', async () => {
    mockXhr(() => ({ status: 201 }));
    let closed = 0;
    const first = renderWithStore(<SubmitWorkModal job={job} onClose={() => void closed++} />);
    expect(screen.getByRole('heading', { name: 'Quick report' })).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart icon lags');
    await userEvent.keyboard('{Escape}');
    expect(closed).toBe(0);
    await userEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect((screen.getByLabelText('Feedback') as HTMLTextAreaElement).value).toBe(
      'The cart icon lags',
    );
    first.unmount();
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    expect((screen.getByLabelText('Feedback') as HTMLTextAreaElement).value).toBe(
      'The cart icon lags',
    );
    expect(sessionStorage.getItem('draft:submit-work:job-1')).toContain('The cart icon lags');
    expect(sessionStorage.getItem('draft:submit-work:job-2')).toBeNull();
  });

  it('starts a resubmission from the previous answers', async () => {
    mockXhr(() => ({ status: 201 }));
    mockFetch((c) =>
      c.url === '/api/jobs/job-1/submission'
        ? {
            body: {
              id: 's1',
              job_id: 'job-1',
              revision: 0,
              submitted_at: '2030-01-01T00:00:00Z',
              locked: false,
              auto_accept_at: null,
              submitted_by_snapshot: { name: 'Tess', location: 'USA' },
              human_preview: {
                device_used: null,
                browser_used: null,
                key_findings_bullets: ['Cart lags', 'Price hidden'],
                small_image_url: null,
              },
              requirement_responses: [],
              general_feedback: 'The cart icon lags behind',
              file_urls: [],
            },
          }
        : { body: { jobs: [] } },
    );
    renderWithStore(<SubmitWorkModal job={revision} onClose={() => undefined} />);
    await waitFor(() =>
      expect((screen.getByLabelText('Feedback') as HTMLTextAreaElement).value).toBe(
        'The cart icon lags behind',
      ),
    );
    expect((screen.getByLabelText(/Key finding 2/) as HTMLInputElement).value).toBe('Price hidden');
  });

  it('forgets the draft once the work is submitted', async () => {
    mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart icon lags behind');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart lags');
    expect(sessionStorage.getItem('draft:submit-work:job-1')).not.toBeNull();
    await submit();
    await waitFor(() => expect(sessionStorage.getItem('draft:submit-work:job-1')).toBeNull());
  });
});

describe('Submit Work modal: finding details', () => {
  it('sends a finding’s severity, steps and expected/actual behind "Add details"', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    const toggle = screen.getByRole('button', { name: 'Add details to finding 1' });
    await userEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    await userEvent.selectOptions(screen.getByLabelText(/Severity/), 'major');
    await userEvent.type(screen.getByLabelText(/Steps to reproduce/), 'Add a shirt to the cart');
    await userEvent.type(screen.getByLabelText(/What you expected/), 'Badge shows 1');
    await userEvent.type(screen.getByLabelText(/What happened/), 'Badge shows 0 for 3 s');
    await submit();
    await waitFor(() => expect(calls).toHaveLength(1));
    const form = calls[0].form;
    expect(form.get('key_finding_1_severity')).toBe('major');
    expect(form.get('key_finding_1_steps')).toBe('Add a shirt to the cart');
    expect(form.get('key_finding_1_expected')).toBe('Badge shows 1');
    expect(form.get('key_finding_1_actual')).toBe('Badge shows 0 for 3 s');
    expect(form.get('key_finding_2_severity')).toBeNull();
  });

  it('shows the contract message for steps over 1000 characters and sends nothing', async () => {
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    renderWithStore(<SubmitWorkModal job={job} onClose={() => undefined} />);
    await userEvent.type(screen.getByLabelText('Feedback'), 'The cart badge lags behind.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Cart badge lags');
    await userEvent.click(screen.getByRole('button', { name: 'Add details to finding 1' }));
    await userEvent.click(screen.getByLabelText(/Steps to reproduce/));
    await userEvent.paste('s'.repeat(1001));
    await submit();
    expect(
      screen.getByText('Finding 1: steps to reproduce must be 1000 characters or less'),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
  });
});

describe("Submit Work in a pack: the 'same problem?' step", () => {
  const packJob = jobView({ id: 'slot-2', pack_id: 'pack-1' });
  const fill = async () => {
    await userEvent.type(screen.getByLabelText('Feedback'), 'Paying did not work for me.');
    await userEvent.type(screen.getByLabelText('Key finding 1'), 'Clicking Pay has no effect');
    await userEvent.type(screen.getByLabelText(/Key finding 2/), 'Footer typo in the name');
  };

  it('shows the closest findings of the other testers only after Submit, and sends the chosen one as same_as', async () => {
    const { calls: fetched } = mockFetch((c) =>
      c.url.endsWith('/api/jobs/slot-2/closest-findings')
        ? {
            body: {
              closest: [
                [{ same_as: 'sub-1:0', text: 'The pay button does nothing', severity: 'blocker' }],
                [],
                [],
              ],
            },
          }
        : { body: { jobs: [] } },
    );
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    let closed = false;
    renderWithStore(<SubmitWorkModal job={packJob} onClose={() => (closed = true)} />);
    // Fresh eyes: nothing of the others is shown while the tester writes.
    expect(screen.queryByText(/Same problem as/)).toBeNull();
    await fill();
    await submit();
    const step = await screen.findByRole('group', { name: 'Same problem?' });
    expect(fetched.find((c) => c.url.endsWith('/closest-findings'))?.body).toEqual({
      texts: ['Clicking Pay has no effect', 'Footer typo in the name', ''],
    });
    expect(calls).toHaveLength(0);
    expect(document.activeElement).toBe(step);
    const mine = within(step).getByRole('group', {
      name: 'Your finding 1: “Clicking Pay has no effect”',
    });
    expect(
      (within(mine).getByLabelText('No, a different problem') as HTMLInputElement).checked,
    ).toBe(true);
    await userEvent.click(
      within(mine).getByLabelText(/Same problem as “The pay button does nothing”/),
    );
    await submit();
    await waitFor(() => expect(closed).toBe(true));
    expect(calls[0].form.get('key_finding_1_same_as')).toBe('sub-1:0');
    expect(calls[0].form.get('key_finding_2_same_as')).toBeNull();
  });

  it('sends at once when nothing of the others is close, and never asks outside a pack', async () => {
    const { calls: fetched } = mockFetch((c) =>
      c.url.endsWith('/closest-findings') ? { body: { closest: [[], [], []] } } : { body: {} },
    );
    const { calls } = mockXhr(() => ({ status: 201, body: {} }));
    let closed = false;
    const { unmount } = renderWithStore(
      <SubmitWorkModal job={packJob} onClose={() => (closed = true)} />,
    );
    await fill();
    await submit();
    await waitFor(() => expect(closed).toBe(true));
    expect(calls[0].form.get('key_finding_1_same_as')).toBeNull();
    unmount();
    resetStorage();
    fetched.length = 0;
    closed = false;
    renderWithStore(<SubmitWorkModal job={job} onClose={() => (closed = true)} />);
    await fill();
    await submit();
    await waitFor(() => expect(closed).toBe(true));
    expect(fetched.some((c) => c.url.endsWith('/closest-findings'))).toBe(false);
  });
});
