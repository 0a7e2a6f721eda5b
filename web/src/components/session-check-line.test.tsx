import '../test/setup';
import { describe, expect, it } from '@jest/globals';
import { render, screen } from '@testing-library/react';
import { axeFindings } from '../test/axe';
import { SessionCheckLine } from './session-check-line';

describe('SessionCheckLine', () => {
  it('shows the Checked line with the measured facts for a report that passed', async () => {
    const { container } = render(
      <SessionCheckLine
        check={{
          status: 'done',
          verdict: 'pass',
          line: '6:12 recorded, 64% talking, 3 of 3 things checked, original text',
          reasons: [],
          replacement_available: false,
        }}
      />,
    );
    expect(container.textContent).toBe(
      'Checked6:12 recorded, 64% talking, 3 of 3 things checked, original text',
    );
    expect(await axeFindings(container)).toEqual([]);
  });

  it('shows the warning and each reason for a borderline report', () => {
    render(
      <SessionCheckLine
        check={{
          status: 'done',
          verdict: 'borderline',
          line: '4:02 recorded, 0% talking, 3 of 3 things checked, original text',
          reasons: [{ code: 'little_talk', text: 'The tester talks for little of the recording.' }],
          replacement_available: true,
        }}
      />,
    );
    const note = screen.getByRole('note', { name: 'Check warning' });
    expect(note.textContent).toContain('Checked, with a warning:');
    expect(screen.getByRole('listitem').textContent).toBe(
      'The tester talks for little of the recording.',
    );
  });
});
