import { ENTITY_KINDS, type EntityKind } from '../api/types';
import { KIND_LABEL, plural } from '../logic/format';

interface Props {
  count: number;
  onApprove: (as: EntityKind) => void;
  onReject: () => void;
  onSpam: () => void;
  /** In Screened and Spam. */
  onBringBack?: () => void;
  onClear: () => void;
}

/** Decisions for every selected card at once. */
export function BulkBar({ count, onApprove, onReject, onSpam, onBringBack, onClear }: Props) {
  return (
    <div class="bulk" role="toolbar" aria-label={`${plural(count, 'selected card')}`}>
      <strong>{plural(count, 'card')} selected</strong>
      {onBringBack && (
        <button type="button" class="primary" onClick={onBringBack}>
          Back to the inbox <kbd>b</kbd>
        </button>
      )}
      <span class="muted small">Approve all as</span>
      {ENTITY_KINDS.map((k) => (
        <button
          key={k}
          type="button"
          onClick={() => onApprove(k)}
          aria-label={`Approve ${plural(count, 'card')} as ${k}s`}
        >
          {KIND_LABEL[k]}
        </button>
      ))}
      <button type="button" class="danger" onClick={onReject}>
        Reject all
      </button>
      <button type="button" class="quiet" onClick={onSpam}>
        All spam <kbd>!</kbd>
      </button>
      <span class="spacer" />
      <button type="button" class="quiet" onClick={onClear}>
        Clear selection <kbd>Esc</kbd>
      </button>
    </div>
  );
}
