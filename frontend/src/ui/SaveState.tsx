/** Where a setting's latest change is: on its way, stored, or refused. */
export type Save = { id: number } & ({ state: 'saving' | 'saved' } | { state: 'error'; text: string });

/** "Saving…", "Saved", or what went wrong and what to do, beside a control. */
export function SaveState({ save }: { save?: Save }) {
  return (
    <>
      <span class={`save-state small ${save?.state === 'saved' ? 'state-ok' : 'muted'}`} aria-live="polite">
        {save?.state === 'saving' && 'Saving…'}
        {save?.state === 'saved' && (
          <>
            <span aria-hidden="true">✓</span> Saved
          </>
        )}
      </span>
      {save?.state === 'error' && (
        <p class="error-text small setting-error" role="alert">
          {save.text}
        </p>
      )}
    </>
  );
}
