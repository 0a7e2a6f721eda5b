import { describe, expect, it } from '@jest/globals';
import { messageBody } from './templates.js';

describe('e-mail links open a screen the reader has', () => {
  it('sends the data-download e-mail to the Your data dialog, which every role has (no poster-less tab)', () => {
    const body = messageBody('data_export_ready', {
      url: 'https://humantest.example/api/me/exports/e1/download?sig=x',
      at: 'Dec 1, 2026',
    });
    expect(body.action).toEqual({ label: 'Open Your data', path: '/dashboard?open=your-data' });
    expect(body.action?.path).not.toContain('tab=');
  });
});

describe('session checks in the e-mails', () => {
  it("delivers a borderline report's results with its warning, and a plain one without", () => {
    const warned = messageBody('work_submitted', {
      jobId: 'j1',
      title: 'Bakery',
      reasons: ['The recording is short.'],
    });
    expect(warned.lines).toContain('The recording is short.');
    expect(warned.lines.join(' ')).toMatch(/free replacement/);
    const plain = messageBody('work_submitted', { jobId: 'j1', title: 'Bakery', reasons: [] });
    expect(plain.lines.join(' ')).not.toMatch(/replacement/);
  });

  it('tells the owner when the replacement report is due at the latest', () => {
    const body = messageBody('replacement_coming', {
      jobId: 'j1',
      title: 'Bakery',
      reason: 'check',
      reasons: ['No screen recording, though the job asked for one.'],
      expectedBy: '2026-12-03T14:00:00.000Z',
    });
    expect(body.lines.join(' ')).toMatch(/within 24-48 hours from now, by .+ at the latest/);
  });

  it('tells the tester of a borderline report what was borderline, that it was sent, and what the owner may do', () => {
    const body = messageBody('session_borderline', {
      jobId: 'j1',
      title: 'Bakery',
      reasons: ['Some things to check have neither an answer nor a finding.'],
    });
    expect(body.subject).toBe('Your report on "Bakery" was sent to the site owner, with a warning');
    expect(body.lines).toContain('Some things to check have neither an answer nor a finding.');
    expect(body.lines.join(' ')).toMatch(/delivered to them/);
    expect(body.lines.join(' ')).toMatch(/may ask for a free replacement/);
  });

  it('tells the owner of a report released after the replacement that it costs them nothing', () => {
    const body = messageBody('work_submitted', { jobId: 'j1', title: 'Bakery', extra: true });
    expect(body.subject).toBe('One more report on "Bakery", at no cost to you');
    expect(body.lines.join(' ')).toMatch(/Nothing is charged: we pay its tester\./);
  });
});
