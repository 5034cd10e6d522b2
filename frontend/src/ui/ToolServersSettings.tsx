import { useEffect, useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import { mcpApi, splitCommand, type MCPServer, type MCPTool } from '../api/mcp';
import type { AppState } from '../state/model';
import { useActions } from './hooks';

/** A server's name, as the agent checks it (it is part of each action's). */
const NAME = /^[a-z0-9_-]{1,40}$/;

/**
 * Settings → Tool servers: other MCP servers whose tools are actions
 * (mcp.<server>.<tool>, docs/mcp.md). Adding one lists its tools, each
 * blocked until approved; each tool shows its mode; a tool whose
 * definition changed since it was approved shows the old and new
 * definitions side by side, approved again with one key (a) or its button.
 */
export function ToolServersSettings({ s }: { s: AppState }) {
  const actions = useActions();
  const api = mcpApi(actions.api);
  const [servers, setServers] = useState<MCPServer[] | undefined>(undefined);
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);
  const [done, setDone] = useState('');

  const load = async () => {
    try {
      setServers(await api.list());
    } catch (e) {
      setError(asApiError(e));
    }
  };
  // Listed again on every mcp.changed: a server that comes back with a
  // changed tool shows its diff without a reload.
  useEffect(() => void load(), [s.mcpSeq]);

  const run = async (key: string, f: () => Promise<string>) => {
    setBusy(key);
    setError(null);
    setDone('');
    try {
      setDone(await f());
      await load();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(null);
    }
  };

  const add = (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    const line = command.trim();
    if (!NAME.test(n)) {
      setError('Name it with 1 to 40 lower-case letters, digits, dashes or underscores.');
      return;
    }
    if (line === '') {
      setError('Type the command that starts the server, or its https:// address.');
      return;
    }
    const isURL = /^https?:\/\//.test(line);
    void run('add', async () => {
      const srv = await api.add(isURL ? { name: n, url: line } : { name: n, command: splitCommand(line) });
      setName('');
      setCommand('');
      if (srv.last_error) return `${n} is added, but it could not be listed: ${srv.last_error}`;
      return `${n} is added with ${srv.tools.length} tools, each waiting for your approval.`;
    });
  };

  const approve = (srv: MCPServer, tool = '') =>
    run(`approve:${srv.name}:${tool}`, async () => {
      const r = await api.approve(srv.name, tool);
      return r.approved.length === 0 ? 'Nothing was waiting for review.' : `Approved and pinned: ${r.approved.join(', ')}.`;
    });

  return (
    <section class="panel" aria-labelledby="settings-mcp-h">
      <h2 id="settings-mcp-h">Tool servers</h2>
      <p class="muted small">
        Other MCP servers whose tools your scouts’ rules and plans can use as actions, named{' '}
        <code>mcp.SERVER.TOOL</code>. Each tool is pinned when you approve it: if the server changes it later, it is
        blocked until you review the difference. A tool that writes still asks before each call unless a policy says
        otherwise. Secrets it needs are set with <code>scouts mcp add --env VAR=SECRET</code>.
      </p>
      {servers === undefined && !error && <p class="muted small">Asking the agent…</p>}
      {servers !== undefined && servers.length === 0 && <p class="small">No tool servers yet.</p>}
      {servers?.map((srv) => (
        <ServerView
          key={srv.name}
          srv={srv}
          busy={busy}
          onApprove={(tool) => void approve(srv, tool)}
          onTrust={(t) =>
            void run(`trust:${srv.name}`, async () => {
              await api.trust(srv.name, t);
              return t
                ? `${srv.name} is trusted: its tools that say they only read are allowed.`
                : `${srv.name} is no longer trusted.`;
            })
          }
          onRefresh={() =>
            void run(`refresh:${srv.name}`, async () => {
              const r = await api.refresh(srv.name);
              return r.drifted ? `${r.drifted} tools of ${srv.name} wait for review.` : `${srv.name}: nothing changed.`;
            })
          }
          onRemove={() =>
            void run(`remove:${srv.name}`, async () => {
              await api.remove(srv.name);
              return `${srv.name} removed with its pins.`;
            })
          }
        />
      ))}
      <form class="field-row mcp-form" onSubmit={add} aria-label="Add a tool server">
        <label class="field">
          <span>Server name</span>
          <input
            type="text"
            value={name}
            autoComplete="off"
            spellcheck={false}
            placeholder="fs"
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="field mcp-command">
          <span>Command or address</span>
          <input
            type="text"
            value={command}
            autoComplete="off"
            spellcheck={false}
            placeholder="npx -y @modelcontextprotocol/server-filesystem ~/notes"
            onInput={(e) => setCommand(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy === 'add'}>
          Add
        </button>
      </form>
      {error && (
        <p class="error-text small" role="alert">
          {typeof error === 'string' ? error : error.full}
        </p>
      )}
      {done && (
        <p class="small" role="status">
          {done}
        </p>
      )}
    </section>
  );
}

function ServerView(p: {
  srv: MCPServer;
  busy: string | null;
  onApprove: (tool?: string) => void;
  onTrust: (trusted: boolean) => void;
  onRefresh: () => void;
  onRemove: () => void;
}) {
  const { srv } = p;
  const [confirming, setConfirming] = useState(false);
  // What the person just ticked, shown until the agent's answer says so.
  const [trusting, setTrusting] = useState<boolean | null>(null);
  useEffect(() => setTrusting(null), [srv.trusted]);
  const where = srv.transport === 'http' ? srv.url : (srv.command ?? []).join(' ');
  const waiting = srv.tools.filter((t) => t.status === 'new' || t.status === 'changed');
  const neverApproved = srv.tools.length > 0 && srv.tools.every((t) => t.status === 'new');
  return (
    <article class="mcp-server" aria-label={`Tool server ${srv.name}`}>
      <h3>
        {srv.name} <span class="muted small">({srv.transport})</span>
      </h3>
      <p class="small">
        <code>{where}</code>
      </p>
      {srv.last_error && (
        <p class="error-text small" role="note">
          Last error: {srv.last_error}
        </p>
      )}
      <div class="field-row">
        {neverApproved && (
          <button type="button" class="primary" disabled={p.busy !== null} onClick={() => p.onApprove()}>
            Approve all {srv.tools.length} tools
          </button>
        )}
        <label class="small">
          <input
            type="checkbox"
            checked={trusting ?? srv.trusted}
            onChange={(e) => {
              setTrusting(e.currentTarget.checked);
              p.onTrust(e.currentTarget.checked);
            }}
          />{' '}
          Trust its
          read-only hints
        </label>
        <button type="button" class="quiet" disabled={p.busy !== null} onClick={p.onRefresh}>
          Check again
        </button>
        {confirming ? (
          <>
            <span class="small">Remove it? Rules naming its tools can no longer run them.</span>{' '}
            <button type="button" class="danger" autoFocus onClick={p.onRemove}>
              Remove
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" class="quiet" aria-label={`Remove tool server ${srv.name}`} onClick={() => setConfirming(true)}>
            Remove
          </button>
        )}
      </div>
      {srv.tools.length > 0 && (
        <table class="mcp-tools small" aria-label={`Tools of ${srv.name}`}>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">State</th>
              <th scope="col">Mode</th>
            </tr>
          </thead>
          <tbody>
            {srv.tools.map((t) => (
              <tr key={t.name}>
                <td>
                  <code>{t.action}</code>
                  {t.description && <div class="muted">{t.description}</div>}
                </td>
                <td>{t.status}</td>
                <td>{t.blocked ? 'blocked' : modeWords(t.mode)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!neverApproved &&
        waiting.map((t) => <ToolReview key={t.name} tool={t} busy={p.busy !== null} onApprove={() => p.onApprove(t.name)} />)}
    </article>
  );
}

function modeWords(mode: string): string {
  return mode === 'require_approval' ? 'asks first' : mode === 'allow' ? 'runs' : mode === 'deny' ? 'never runs' : mode;
}

/** A changed or new tool: its approved and listed definitions side by side,
 * approved again with a (while the review has focus) or its button. */
function ToolReview({ tool, busy, onApprove }: { tool: MCPTool; busy: boolean; onApprove: () => void }) {
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'a' || e.ctrlKey || e.metaKey || e.altKey || busy) return;
    e.preventDefault(); // not the inbox's approve
    onApprove();
  };
  return (
    <section
      class="mcp-review"
      tabIndex={0}
      aria-label={`Review ${tool.name}`}
      aria-keyshortcuts="a"
      onKeyDown={onKey}
    >
      <p class="small">
        <strong>{tool.name}</strong>{' '}
        {tool.status === 'new'
          ? 'is new since you approved this server: it is blocked until you approve it.'
          : 'changed since you approved it: it is blocked until you approve it again.'}{' '}
        Press <kbd>a</kbd> here to approve it.
      </p>
      {tool.diff && tool.diff.length > 0 && (
        <table class="mcp-diff small" aria-label={`Changes to ${tool.name}`}>
          <thead>
            <tr>
              <th scope="col">Approved</th>
              <th scope="col">Now</th>
            </tr>
          </thead>
          <tbody>
            {tool.diff.map((d, i) => (
              <tr key={i} class={`diff-${d.op}`}>
                <td>
                  <pre>{d.old ?? ''}</pre>
                </td>
                <td>
                  <pre>{d.new ?? ''}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" class="primary" disabled={busy} onClick={onApprove}>
        Approve {tool.name} again
      </button>
    </section>
  );
}
