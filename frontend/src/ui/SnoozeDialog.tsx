import { useEffect, useRef, useState } from 'preact/hooks';
import { Dialog } from './Dialog';

interface Props {
  /** How many cards are snoozed, for the title. */
  count: number;
  /** Snoozes until the words typed; resolves to the agent's words when it
   * could not read them (the dialog stays open), else undefined. */
  onSnooze: (until: string) => Promise<string | undefined>;
  onClose: () => void;
}

/** The choices offered before anything is typed: each is what a person
 * would type. */
export const SNOOZE_CHOICES = ['in 3 hours', 'tomorrow morning', 'next week'] as const;

/** z on a card: a time typed in words ("in 3 hours", "Friday 2pm"), read
 * by the agent with the same date reader as the cards' due dates. */
export function SnoozeDialog({ count, onSnooze, onClose }: Props) {
  const [until, setUntil] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (when: string) => {
    if (!when.trim() || busy) return;
    setBusy(true);
    setError('');
    const err = await onSnooze(when.trim());
    setBusy(false);
    if (err) setError(err);
    else onClose();
  };

  return (
    <Dialog title={count === 1 ? 'Snooze until…' : `Snooze ${count} cards until…`} onClose={onClose}>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void submit(until);
        }}
      >
        <label>
          When
          <input
            ref={input}
            name="until"
            type="text"
            value={until}
            placeholder="in 3 hours, tomorrow morning, next week, Friday 2pm"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'snooze-error' : undefined}
            onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
          />
        </label>
        {error && (
          <p id="snooze-error" class="error small" role="alert">
            {error}
          </p>
        )}
        <div class="row">
          {SNOOZE_CHOICES.map((c) => (
            <button key={c} type="button" class="quiet small-btn" disabled={busy} onClick={() => void submit(c)}>
              {c}
            </button>
          ))}
          <button type="submit" disabled={busy || !until.trim()}>
            Snooze
          </button>
        </div>
      </form>
    </Dialog>
  );
}
