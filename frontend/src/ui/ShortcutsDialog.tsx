import { SHORTCUTS } from '../logic/keys';
import { Dialog } from './Dialog';

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <div class="shortcuts">
        {SHORTCUTS.map((sec) => (
          <section key={sec.section}>
            <h3>{sec.section}</h3>
            <dl>
              {sec.keys.map(([k, what]) => (
                <div key={k} class="shortcut">
                  <dt>
                    <kbd>{k}</kbd>
                  </dt>
                  <dd>{what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Dialog>
  );
}
