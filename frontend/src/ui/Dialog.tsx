import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface Props {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
  /** Shown under the title, e.g. where the item comes from. */
  subtitle?: ComponentChildren;
}

/** A modal dialog: the platform's <dialog>, which traps focus, closes on
 * Escape and gives focus back to what had it. */
export function Dialog({ title, onClose, children, wide, subtitle }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const close = useRef(onClose);
  close.current = onClose;
  const pressedOutside = useRef(false);

  useEffect(() => {
    const d = ref.current!;
    const before = document.activeElement as HTMLElement | null;
    d.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      close.current();
    };
    d.addEventListener('cancel', onCancel);
    return () => {
      d.removeEventListener('cancel', onCancel);
      if (d.open) d.close();
      if (before?.isConnected) before.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      class={wide ? 'dialog wide' : 'dialog'}
      aria-labelledby={titleId}
      onMouseDown={(e) => {
        pressedOutside.current = e.target === ref.current;
      }}
      onClick={(e) => {
        // A click on the backdrop (the dialog itself, outside its box),
        // pressed there too: a text selected inside and released outside
        // also clicks the dialog, and must not close it.
        if (e.target === ref.current && pressedOutside.current) onClose();
        pressedOutside.current = false;
      }}
    >
      <div class="dialog-box">
        <header class="dialog-head">
          <div>
            <h2 id={titleId}>{title}</h2>
            {subtitle && <p class="muted small">{subtitle}</p>}
          </div>
          <button type="button" class="icon-btn" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}
