import { ENTITY_KINDS, type EntityKind } from '../api/types';
import { KIND_LABEL, plural } from '../logic/format';

interface Props {
  count: number;
  onApprove: (as: EntityKind) => void;
  onReject: () => void;
  onClear: () => void;
}

/** Decisions for every selected card at once. */
export function BulkBar({ count, onApprove, onReject, onClear }: Props) {
  return (
    <div class="bulk" role="toolbar" aria-label={`${plural(count, 'selected card')}`}>
      <strong>{plural(count, 'card')} selected</strong>
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
      <span class="spacer" />
      <button type="button" class="quiet" onClick={onClear}>
        Clear selection <kbd>Esc</kbd>
      </button>
    </div>
  );
}
