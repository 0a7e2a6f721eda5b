import '../../test/setup';
import { describe, expect, it } from '@jest/globals';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { z } from 'zod';
import {
  CheckboxGroup,
  ListField,
  RadioGroup,
  SchemaForm,
  SubmitButton,
  TextArea,
  TextField,
} from '.';
import { showServerErrors } from './errors';
import { useSchemaForm } from './use-schema-form';

Element.prototype.scrollIntoView = function () {} as Element['scrollIntoView'];

const schema = z.object({
  title: z.string().trim().min(1, { error: 'Title is required' }),
  notes: z.string().max(5, { error: 'Notes must be 5 characters or less' }),
  url: z.string().trim().min(1, { error: 'URL is required' }),
  checks: z
    .array(z.string().max(3, { error: 'Each check must be 3 characters or less' }))
    .transform((l) => l.filter(Boolean))
    .pipe(z.array(z.string()).min(1, { error: 'Add at least one check.' })),
});
type Values = z.input<typeof schema>;

/** A form whose server answers `answer` (a 400's field errors, or nothing) after `gate`. */
function Demo({
  sent,
  answer = {},
  gate = Promise.resolve(),
}: {
  sent: unknown[];
  answer?: Record<string, string>;
  gate?: Promise<void>;
}) {
  const form = useSchemaForm<Values, z.output<typeof schema>>(schema, {
    title: '',
    notes: '',
    url: '',
    checks: [''],
  });
  return (
    <SchemaForm
      form={form}
      aria-label="Demo"
      onValid={async (body) => {
        sent.push(body);
        await gate;
        showServerErrors(form.setError, answer, (k) => k in body);
      }}
    >
      <TextField name="title" label="Title" />
      <TextArea name="notes" label="Notes" hint="Up to 5" />
      <TextField name="url" label="Website" />
      <ListField
        name="checks"
        max={3}
        addLabel="Add a check"
        removeLabel={(i) => `Remove check ${i + 1}`}
      >
        {(i, remove) => (
          <>
            <TextField name={`checks.${i}`} label={`Check ${i + 1}`} />
            {remove}
          </>
        )}
      </ListField>
      <SubmitButton busyLabel="Sending…">Send</SubmitButton>
    </SchemaForm>
  );
}

/** The error text that `label`'s control points at with aria-describedby. */
const errorOf = (label: string) => {
  const ids = screen.getByLabelText(label).getAttribute('aria-describedby') ?? '';
  return ids
    .split(' ')
    .map((id) => document.getElementById(id))
    .find((el) => el?.className === 'field__error')?.textContent;
};

describe('SchemaForm', () => {
  it('an invalid submit sends nothing, shows each message under its field and focuses the first', async () => {
    const sent: unknown[] = [];
    render(<Demo sent={sent} />);
    await userEvent.type(screen.getByLabelText('Notes'), 'too long');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(errorOf('Title')).toBe('Title is required');
    expect(errorOf('Notes')).toBe('Notes must be 5 characters or less');
    expect(errorOf('Website')).toBe('URL is required');
    expect(screen.getByRole('alert').textContent).toBe('Add at least one check.');
    expect(screen.getByLabelText('Title').getAttribute('aria-invalid')).toBe('true');
    // The hint stays described beside the error.
    expect(
      screen.getByLabelText('Notes').getAttribute('aria-describedby')?.split(' '),
    ).toHaveLength(2);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Title')));
    expect(sent).toEqual([]);
    // Editing a field takes its error away; the others stay until the next submit.
    await userEvent.type(screen.getByLabelText('Title'), 'Bakery');
    expect(errorOf('Title')).toBeUndefined();
    expect(screen.getByLabelText('Title').getAttribute('aria-invalid')).toBeNull();
    expect(errorOf('Website')).toBe('URL is required');
  });

  it("a list row's own error shows under that row, not the list's", async () => {
    const sent: unknown[] = [];
    render(<Demo sent={sent} />);
    await userEvent.type(screen.getByLabelText('Title'), 'Bakery');
    await userEvent.type(screen.getByLabelText('Website'), 'https://bakery.example');
    await userEvent.click(screen.getByRole('button', { name: 'Add a check' }));
    await userEvent.type(screen.getByLabelText('Check 2'), 'toolong');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(errorOf('Check 2')).toBe('Each check must be 3 characters or less');
    expect(errorOf('Check 1')).toBeUndefined();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Check 2')));
    await userEvent.click(screen.getByRole('button', { name: 'Remove check 2' }));
    expect(screen.queryByLabelText('Check 2')).toBeNull();
    expect(sent).toEqual([]);
  });

  it("shows a server 400's field error under its field and focuses it when it arrives", async () => {
    const sent: unknown[] = [];
    let answer!: () => void;
    const gate = new Promise<void>((r) => (answer = r));
    render(<Demo sent={sent} gate={gate} answer={{ url: 'Local addresses cannot be tested' }} />);
    await userEvent.type(screen.getByLabelText('Title'), 'Bakery');
    await userEvent.type(screen.getByLabelText('Website'), 'http://localhost');
    await userEvent.type(screen.getByLabelText('Check 1'), 'abc');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      title: 'Bakery',
      notes: '',
      url: 'http://localhost',
      checks: ['abc'],
    });
    answer();
    await waitFor(() => expect(errorOf('Website')).toBe('Local addresses cannot be tested'));
    expect(screen.getByLabelText('Website').getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Website')));
  });

  it('is not submitted twice: the button is disabled and says so while the submit runs', async () => {
    const sent: unknown[] = [];
    let answer!: () => void;
    const gate = new Promise<void>((r) => (answer = r));
    render(<Demo sent={sent} gate={gate} />);
    await userEvent.type(screen.getByLabelText('Title'), 'Bakery');
    await userEvent.type(screen.getByLabelText('Website'), 'https://bakery.example');
    await userEvent.type(screen.getByLabelText('Check 1'), 'abc');
    const button = screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    await userEvent.dblClick(button);
    // A submit event the button cannot stop (Enter in a field) is ignored too.
    await userEvent.type(screen.getByLabelText('Title'), '{Enter}');
    await waitFor(() => expect(button.disabled).toBe(true));
    expect(button.textContent).toBe('Sending…');
    expect(sent).toHaveLength(1);
    answer();
    await waitFor(() => expect(button.disabled).toBe(false));
    expect(button.textContent).toBe('Send');
    expect(sent).toHaveLength(1);
  });

  it('binds a radio group and a checkbox group: their errors show under them, a change clears its own', async () => {
    const choice = z.object({
      plan: z.enum(['small', 'large'], { error: 'Please choose a plan' }),
      extras: z.array(z.string()).min(1, { error: 'Tick at least one extra' }),
    });
    const sent: unknown[] = [];
    function Choice() {
      const form = useSchemaForm(choice, { plan: '' as 'small', extras: [] as string[] });
      return (
        <SchemaForm form={form} aria-label="Choice" onValid={(v) => void sent.push(v)}>
          <RadioGroup
            name="plan"
            legend="Plan"
            options={[
              ['small', 'Small'],
              ['large', 'Large'],
            ]}
            optionClassName={(on) => `choice${on ? ' choice--on' : ''}`}
          />
          <CheckboxGroup
            name="extras"
            legend="Extras"
            options={[
              ['milk', 'Milk'],
              ['sugar', 'Sugar'],
            ]}
          >
            <p>Tick what you take.</p>
          </CheckboxGroup>
          <SubmitButton>Order</SubmitButton>
        </SchemaForm>
      );
    }
    render(<Choice />);
    await userEvent.click(screen.getByRole('button', { name: 'Order' }));
    expect(screen.getByText('Please choose a plan')).toBeTruthy();
    expect(screen.getByText('Tick at least one extra')).toBeTruthy();
    expect(screen.getByText('Tick what you take.')).toBeTruthy();
    expect(sent).toEqual([]);
    await userEvent.click(screen.getByLabelText('Large'));
    expect(screen.queryByText('Please choose a plan')).toBeNull();
    expect(screen.getByLabelText('Large').closest('label')?.className).toBe('choice choice--on');
    expect(screen.getByLabelText('Small').closest('label')?.className).toBe('choice');
    expect(screen.getByText('Tick at least one extra')).toBeTruthy();
    await userEvent.click(screen.getByLabelText('Sugar'));
    await userEvent.click(screen.getByLabelText('Milk'));
    expect(screen.queryByText('Tick at least one extra')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Order' }));
    await waitFor(() => expect(sent).toEqual([{ plan: 'large', extras: ['sugar', 'milk'] }]));
  });
});
