import '../test/setup';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState, type FormEvent } from 'react';
import { Field } from './field';
import { Form } from './form';

const scrolled: Element[] = [];
const scrollOptions: unknown[] = [];
Element.prototype.scrollIntoView = function (this: Element, opts?: unknown) {
  scrolled.push(this);
  scrollOptions.push(opts);
} as Element['scrollIntoView'];

function setMotion(reduce: boolean) {
  window.matchMedia = ((q: string) => ({
    matches: reduce && q.includes('reduce'),
    media: q,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  })) as unknown as typeof window.matchMedia;
}

afterEach(() => {
  scrolled.length = 0;
  scrollOptions.length = 0;
});

/** A long form: its first field is far above the submit button. */
function LongForm({ server }: { server?: () => Promise<Record<string, string>> }) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [title, setTitle] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!title) return setErrors({ title: 'Title is required' });
    setErrors({});
    if (server) setErrors(await server());
  };
  return (
    <Form aria-label="Long form" onSubmit={submit}>
      <Field label="Title" error={errors.title}>
        <input value={title} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      {Array.from({ length: 20 }, (_, i) => (
        <Field key={i} label={`Filler ${i}`}>
          <input />
        </Field>
      ))}
      <Field label="Website" error={errors.url}>
        <input />
      </Field>
      <button type="submit">Send</button>
    </Form>
  );
}

describe('Form: a failed submit is never invisible', () => {
  it('scrolls to and focuses the first invalid field when the submit fails', async () => {
    setMotion(false);
    render(<LongForm />);
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    const title = screen.getByLabelText('Title');
    await waitFor(() => expect(document.activeElement).toBe(title));
    expect(scrolled).toContain(title);
    expect(scrollOptions.at(-1)).toEqual({ block: 'center', behavior: 'smooth' });
  });

  it("focuses a field the server's answer marks invalid, and scrolls without animation when motion is reduced", async () => {
    setMotion(true);
    let answer!: (errors: Record<string, string>) => void;
    render(<LongForm server={() => new Promise((r) => (answer = r))} />);
    await userEvent.type(screen.getByLabelText('Title'), 'Bakery');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Send' }));
    answer({ url: 'Please enter a valid URL' });
    const website = screen.getByLabelText('Website');
    await waitFor(() => expect(document.activeElement).toBe(website));
    expect(scrollOptions.at(-1)).toEqual({ block: 'center', behavior: 'auto' });
  });

  it('leaves the focus alone when the submit succeeds', async () => {
    setMotion(false);
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick'] });
    try {
      render(<LongForm server={async () => ({})} />);
      const send = screen.getByRole('button', { name: 'Send' });
      const user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime });
      await user.type(screen.getByLabelText('Title'), 'Bakery');
      await user.click(send);
      jest.advanceTimersByTime(20_000);
      expect(document.activeElement).toBe(send);
      expect(scrolled).toHaveLength(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
