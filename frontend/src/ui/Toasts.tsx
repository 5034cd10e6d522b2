import type { Toast } from '../logic/toasts';
import { useActions } from './hooks';

/** Passing messages. Screen readers hear them through the live region in
 * App (info) or because errors are alerts. */
export function Toasts({ toasts }: { toasts: readonly Toast[] }) {
  const actions = useActions();
  return (
    <div class="toasts" role="region" aria-label="Messages">
      {toasts.map((t) => (
        <div key={t.id} class={`toast ${t.tone}`} role={t.tone === 'error' ? 'alert' : undefined}>
          <span class="toast-text">{t.text}</span>
          {t.action && (
            <button
              type="button"
              class="toast-action"
              onClick={() => {
                actions.toaster.dismiss(t.id);
                t.action!.run();
              }}
            >
              {t.action.label}
              {t.slot === 'decision' && <kbd>u</kbd>}
            </button>
          )}
          <button type="button" class="icon-btn" aria-label="Dismiss" onClick={() => actions.toaster.dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
