import { useRef, useState } from 'preact/hooks';
import type { Settings } from '../api/types';
import { explain, shown, type Field } from '../logic/settings';
import type { AppState } from '../state/model';
import { BriefTimeSetting } from './BriefTimeSetting';
import { useActions } from './hooks';
import { PoliciesSettings } from './PoliciesSettings';
import { QuietHoursSetting } from './QuietHoursSetting';
import { RelaySettings } from './RelaySettings';
import { SaveState, type Save } from './SaveState';
import { SecretsSettings } from './SecretsSettings';
import { ToolServersSettings } from './ToolServersSettings';

export function SettingsView({ s }: { s: AppState }) {
  const actions = useActions();
  // Changes on their way to the agent: shown at once, dropped when answered
  // (the agent's answer or a live event then says what is stored).
  const [pending, setPending] = useState<{ id: number; patch: Partial<Settings> }[]>([]);
  const [saves, setSaves] = useState<Partial<Record<Field, Save>>>({});
  const seq = useRef(0);

  const save = async (field: Field, patch: Partial<Settings>) => {
    const id = ++seq.current;
    setPending((p) => [...p, { id, patch }]);
    setSaves((v) => ({ ...v, [field]: { id, state: 'saving' } }));
    const err = await actions.saveSettings(patch);
    setPending((p) => p.filter((x) => x.id !== id));
    // A newer change to the same field speaks for it.
    setSaves((v) =>
      v[field]?.id !== id
        ? v
        : { ...v, [field]: err ? { id, state: 'error', text: explain(field, patch, err) } : { id, state: 'saved' } },
    );
  };

  const cur = s.settings && shown(s.settings, pending.map((p) => p.patch));
  return (
    <section class="view" aria-labelledby="settings-h">
      <header class="view-head">
        <h1 id="settings-h" tabIndex={-1}>
          Settings
        </h1>
        <p class="muted small">Changes are saved as you make them.</p>
      </header>
      {!cur && <p class="muted">{s.problem ? 'The agent did not answer.' : 'Asking the agent…'}</p>}
      {cur && (
        <>
          <section class="panel" aria-labelledby="settings-desktop-h">
            <h2 id="settings-desktop-h">Desktop</h2>
            <div class="setting">
              <label class="setting-label">
                <input
                  type="checkbox"
                  checked={cur.autostart}
                  aria-describedby="autostart-help"
                  onChange={(e) => void save('autostart', { autostart: e.currentTarget.checked })}
                />
                <span>Start Scouts when I log in</span>
              </label>
              <SaveState save={saves.autostart} />
              <p id="autostart-help" class="muted small setting-help">
                The agent starts with your desktop session, so scouts keep watching and notifying without you opening
                Scouts. It adds an entry to your startup programs (<code>~/.config/autostart/scouts.desktop</code> on
                Linux) for this agent and its data folder.
              </p>
            </div>
          </section>
          <section class="panel" aria-labelledby="settings-notify-h">
            <h2 id="settings-notify-h">Notifications</h2>
            <div class="setting">
              <label class="setting-label">
                <input
                  type="checkbox"
                  checked={cur.notifications}
                  aria-describedby="notifications-help"
                  onChange={(e) => void save('notifications', { notifications: e.currentTarget.checked })}
                />
                <span>Notify me of new suggestions</span>
              </label>
              <SaveState save={saves.notifications} />
              <p id="notifications-help" class="muted small setting-help">
                A desktop notification when new cards wait in the inbox: one for a burst, at most one every 10 seconds.
              </p>
            </div>
            <QuietHoursSetting
              q={cur.quiet_hours}
              notifications={cur.notifications}
              save={saves.quiet_hours}
              onSave={(quiet_hours) => void save('quiet_hours', { quiet_hours })}
            />
            <BriefTimeSetting />
          </section>
          {s.status && <RelaySettings relay={s.status.relay} />}
          <SecretsSettings s={s} />
          <PoliciesSettings s={s} />
          <ToolServersSettings s={s} />
        </>
      )}
    </section>
  );
}
