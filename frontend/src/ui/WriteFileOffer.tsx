import { useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import type { ManagedRefusal } from '../state/managed';

/** In a form, the agent's refusal of a change to a scout a definitions
 * file manages, with its offer ("Write to scans.yaml"): the form's own
 * change made again, writing the file (state/managed.ts). */
export function WriteFileOffer<T>({
  refusal,
  onWritten,
  onFailed,
}: {
  refusal: ManagedRefusal<T>;
  onWritten: (v: T) => void;
  onFailed: (e: ApiError) => void;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <p class="warning-text small write-file-offer" role="alert">
      {refusal.text}{' '}
      <button
        type="button"
        class="small-btn"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          let v: T;
          try {
            v = await refusal.write();
          } catch (e) {
            setBusy(false);
            onFailed(asApiError(e));
            return;
          }
          onWritten(v);
        }}
      >
        {busy ? 'Writing…' : refusal.label}
      </button>
    </p>
  );
}
