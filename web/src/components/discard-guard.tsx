import { useEffect, useRef, useState } from 'react';
import styles from './discard-guard.module.css';
import { buttonClass } from './button';

export const DISCARD_QUESTION = 'Discard your draft?';

/**
 * Closing a form that holds text asks first (a stray click outside the modal, Esc, × or
 * Cancel): "Keep editing" returns to the form, "Discard draft" forgets it and closes.
 * `requestClose` goes to the Modal's onClose and the Cancel button; `prompt` is rendered
 * inside the modal (Modal's `banner`).
 */
export function useDiscardGuard(dirty: boolean, onClose: () => void, onDiscard: () => void) {
  const [asking, setAsking] = useState(false);
  const requestClose = () => {
    if (asking) setAsking(false);
    else if (dirty) setAsking(true);
    else onClose();
  };
  const prompt = asking ? (
    <DiscardPrompt
      onKeep={() => setAsking(false)}
      onDiscard={() => {
        setAsking(false);
        onDiscard();
        onClose();
      }}
    />
  ) : null;
  return { requestClose, prompt };
}

function DiscardPrompt({ onKeep, onDiscard }: { onKeep: () => void; onDiscard: () => void }) {
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), []);
  return (
    <div className={styles['discard-prompt']} role="alertdialog" aria-label={DISCARD_QUESTION}>
      <p>
        <strong>{DISCARD_QUESTION}</strong> What you typed will be lost.
      </p>
      <div className={styles['discard-prompt__actions']}>
        <button ref={keep} type="button" className={buttonClass('primary', 'sm')} onClick={onKeep}>
          Keep editing
        </button>
        <button type="button" className={buttonClass('danger', 'sm')} onClick={onDiscard}>
          Discard draft
        </button>
      </div>
    </div>
  );
}
