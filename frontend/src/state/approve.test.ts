import { describe, expect, it } from 'vitest';
import { Api } from '../api/client';
import type { PlanAction } from '../api/plans';
import type { Approve, Entity } from '../api/types';
import { Actions } from './actions';
import { ent, scout, sug } from './testdata';

/** An agent that records approve requests and answers retries and drops. */
class PlanApi extends Api {
  approvals: Approve[] = [];
  retried: string[] = [];
  failing: PlanAction[] = [];

  constructor() {
    super(async () => {
      throw new Error('no network in unit tests');
    }, 'browser');
  }

  override status = async () => ({ paused: false }) as never;
  override scouts = async () => [scout('sc_1', { name: 'Work mail' })];
  override settings = async () => ({ notifications: true, autostart: false });
  override folders = async () => ({ path: '/home/ann', dirs: [] });
  override suggestions = async () => [sug('a', { proposed_kind: 'task' })];
  override failingActions = async () => this.failing;
  override approve = async (id: string, a: Approve): Promise<Entity> => {
    this.approvals.push(a);
    return ent('tk_' + id, { kind: a.as, source_suggestion_id: id });
  };
  override retryAction = async (id: string, n: number) => {
    this.retried.push(`${id}:${n}`);
    return { ...this.failing[0]!, state: 'queued' };
  };
  override dropAction = async (_id: string, _n: number) => ({ ...this.failing[0]!, state: 'dropped', failing: false });
}

async function setup(api = new PlanApi()) {
  const a = new Actions(api, { start: () => () => {} });
  a.start();
  await a.loadAll();
  // The failing list loads beside the rest, without holding it up.
  for (let i = 0; i < 20 && !a.store.state.failing.loaded; i++) await Promise.resolve();
  return { api, a };
}

describe('approving with a plan', () => {
  it('sends the plan as ticked, and "always" with what it allows, said in a toast', async () => {
    const { api, a } = await setup();
    const plan = [
      { action: 'task.create', enabled: true },
      { action: 'gmail.archive', enabled: false },
    ];
    await a.decide(['a'], { as: 'task', fields: {}, plan, always: ['task.create'] });
    expect(api.approvals).toEqual([{ as: 'task', actions: plan, always: true }]);
    const texts = a.store.state.toasts.map((t) => t.text);
    expect(texts).toContain('Always allow task.create for Work mail — change in Settings → Policies');
  });

  it('sends no plan when the dialog had none, and no "always" when nothing is allowed', async () => {
    const { api, a } = await setup();
    await a.decide(['a'], { as: 'task', fields: {}, always: [] });
    expect(api.approvals).toEqual([{ as: 'task' }]);
    expect(a.store.state.toasts.map((t) => t.text).join()).not.toContain('Always allow');
  });
});

describe('failing actions', () => {
  const failing: PlanAction = {
    suggestion_id: 'sg_1',
    n: 2,
    action: 'webhook.post',
    params: { url: 'https://hooks.example.com/in' },
    enabled: true,
    origin: 'user',
    mode: 'require_approval',
    mode_source: 'inferred',
    state: 'failed',
    failing: true,
    error: 'the receiver refused it (400 Bad Request)',
  };

  it('are loaded with everything else', async () => {
    const api = new PlanApi();
    api.failing = [failing];
    const { a } = await setup(api);
    expect(Object.values(a.store.state.failing.items)).toEqual([failing]);
  });

  it('stay listed on retry until the stream says how the attempt went', async () => {
    const api = new PlanApi();
    api.failing = [failing];
    const { a } = await setup(api);
    await a.retryAction(failing);
    expect(api.retried).toEqual(['sg_1:2']);
    expect(Object.keys(a.store.state.failing.items)).toHaveLength(1);
    expect(a.store.state.toasts.at(-1)!.text).toBe('Trying again: post the card to hooks.example.com');
  });

  it('leave the list when dropped', async () => {
    const api = new PlanApi();
    api.failing = [failing];
    const { a } = await setup(api);
    await a.dropAction(failing);
    expect(a.store.state.failing.items).toEqual({});
    expect(a.store.state.toasts.at(-1)!.text).toBe('Dropped: post the card to hooks.example.com will not run');
  });
});
