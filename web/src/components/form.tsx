import { useEffect, useRef, type FormHTMLAttributes, type SubmitEvent } from 'react';
import { scrollBehavior } from '../lib/motion';

/** How long after a submit an error that arrives (a server's field errors) still takes focus. */
const FOCUS_WINDOW_MS = 15_000;

const INVALID = '[aria-invalid="true"]';
const FOCUSABLE = 'input:not([type="hidden"]), select, textarea, button, [tabindex]';

/**
 * The first control of `form`, in the order a person reads it, that shows an error: a field
 * marked aria-invalid, or the first control of a group whose error text shows (a radio group or
 * switch: "Please choose a role" above an invalid Location focuses the role); else the form's alert.
 */
export function firstInvalid(form: HTMLElement): HTMLElement | null {
  for (const el of form.querySelectorAll<HTMLElement>(`${INVALID}, .field__error`)) {
    if (el.matches(INVALID)) return el;
    const control = el
      .closest<HTMLElement>('.field, fieldset')
      ?.querySelector<HTMLElement>(FOCUSABLE);
    if (control) return control;
  }
  return form.querySelector<HTMLElement>('[role="alert"]');
}

/** Scrolls `el` into the middle of the window (no animation when motion is reduced) and focuses it. */
export function revealAndFocus(el: HTMLElement) {
  el.scrollIntoView?.({ block: 'center', behavior: scrollBehavior() });
  if (el.getAttribute('role') === 'alert' && !el.hasAttribute('tabindex')) el.tabIndex = -1;
  el.focus({ preventScroll: true });
}

/**
 * A `<form noValidate>` whose failed submit is never invisible: when a submit leaves a field
 * with an error (at once, or when the server's answer arrives within a few seconds), the first
 * such field is scrolled into view and focused. Typing in the form cancels the pending focus.
 */
export function Form({ onSubmit, onInput, ...props }: FormHTMLAttributes<HTMLFormElement>) {
  const ref = useRef<HTMLFormElement>(null);
  const pending = useRef<{ stop: () => void } | null>(null);

  useEffect(() => () => pending.current?.stop(), []);

  const watch = () => {
    pending.current?.stop();
    const form = ref.current;
    if (!form) return;
    let done = false;
    const check = () => {
      if (done) return;
      const el = firstInvalid(form);
      if (el) {
        stop();
        revealAndFocus(el);
      }
    };
    const observer = typeof MutationObserver === 'function' ? new MutationObserver(check) : null;
    observer?.observe(form, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['aria-invalid', 'class'],
    });
    const timer = setTimeout(() => stop(), FOCUS_WINDOW_MS);
    function stop() {
      done = true;
      observer?.disconnect();
      clearTimeout(timer);
      if (pending.current === handle) pending.current = null;
    }
    const handle = { stop };
    pending.current = handle;
    // Errors already on screen (a second submit without changes) do not mutate the DOM.
    queueMicrotask(() => setTimeout(check, 0));
  };

  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    watch();
    return onSubmit?.(e);
  };

  return (
    <form
      ref={ref}
      noValidate
      {...props}
      onSubmit={submit}
      onInput={(e) => {
        pending.current?.stop();
        onInput?.(e);
      }}
    />
  );
}
