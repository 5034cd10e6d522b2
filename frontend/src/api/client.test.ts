import { describe, expect, it } from 'vitest';
import { Api, clientName } from './client';
import { ApiError, errorFromResponse, sentence } from './errors';

type Call = { url: string; init: RequestInit };

function fakeFetch(respond: (c: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const f = async (url: string, init?: RequestInit) => {
    const c = { url, init: init ?? {} };
    calls.push(c);
    return respond(c);
  };
  return { f, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected a failure');
}

describe('the API client', () => {
  it('calls relative URLs with the page’s cookie and says who it is', async () => {
    const { f, calls } = fakeFetch(() => json(201, { id: 'tk_1', kind: 'task' }));
    const api = new Api(f, 'browser');
    const e = await api.approve('sg_1', { as: 'task', title: 'Pay' });
    expect(e.id).toBe('tk_1');
    const c = calls[0]!;
    expect(c.url).toBe('/api/v1/suggestions/sg_1/approve');
    expect(c.init.method).toBe('POST');
    expect(c.init.credentials).toBe('same-origin');
    expect((c.init.headers as Record<string, string>)['X-Scouts-Client']).toBe('browser');
    expect(JSON.parse(c.init.body as string)).toEqual({ as: 'task', title: 'Pay' });
  });

  it('answers nothing for 204 and 202', async () => {
    const { f } = fakeFetch(() => new Response(null, { status: 204 }));
    await expect(new Api(f).deleteEntity('task', 'tk_1')).resolves.toBeUndefined();
  });

  it('says the agent is unreachable, and how to fix it, when nothing answers', async () => {
    const { f } = fakeFetch(() => {
      throw new TypeError('Failed to fetch');
    });
    const e = await failure(new Api(f).status());
    expect(e.code).toBe('offline');
    expect(e.status).toBe(0);
    expect(e.message).toBe('The agent is not reachable.');
    expect(e.hint).toContain('scouts agent');
  });

  it('explains a missing sign-in', async () => {
    const { f } = fakeFetch(() => json(401, { code: 'unauthorized', error: 'missing or wrong bearer token' }));
    const e = await failure(new Api(f).scouts());
    expect(e.code).toBe('unauthorized');
    expect(e.full).toMatch(/not signed in.*link that `scouts agent --ui` printed/);
  });

  it('passes the agent’s own words for request problems, as a sentence', async () => {
    const { f } = fakeFetch(() => json(409, { code: 'conflict', error: 'suggestion sg_1 is already rejected' }));
    const e = await failure(new Api(f).approve('sg_1', { as: 'task' }));
    expect(e.code).toBe('conflict');
    expect(e.status).toBe(409);
    expect(e.message).toBe('Suggestion sg_1 is already rejected.');
    expect(e.hint).toBe('');
  });

  it('hides internals of a bug and points to the log', async () => {
    const { f } = fakeFetch(() => json(500, { code: 'internal', error: 'sql: database is locked' }));
    const e = await failure(new Api(f).status());
    expect(e.full).toBe("Something went wrong inside the agent. This is a bug: the details are in the agent's log.");
  });

  it('notices an answer that is not the API', async () => {
    const { f } = fakeFetch(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    const e = await failure(new Api(f).status());
    expect(e.code).toBe('bad_response');
    expect(e.message).toContain('HTTP 502');
  });

  it('builds the folder query', async () => {
    const { f, calls } = fakeFetch(() => json(200, { path: '/home/ann', dirs: [] }));
    await new Api(f).folders('/home/ann/My Files', true);
    await new Api(f).folders();
    expect(calls.map((c) => c.url)).toEqual([
      '/api/v1/folders?path=%2Fhome%2Fann%2FMy+Files&hidden=1',
      '/api/v1/folders',
    ]);
  });

  it('asks to write the definitions file only when told, on every change to a scout', async () => {
    const { f, calls } = fakeFetch(() => json(200, {}));
    const api = new Api(f);
    const doc = { id: 'r', when: {}, then: { verdict: 'show' as const } };
    const settings = { cold_start: 1, screen_below: 0.3, spam_above: 0.9, min_spam: 10 };
    for (const w of [false, true]) {
      await api.updateScout('sc_1', { review: false }, w);
      await api.addRule('sc_1', doc, w);
      await api.putRule('sc_1', 'r', doc, w);
      await api.enableRule('sc_1', 'r', false, w);
      await api.deleteRule('sc_1', 'r', w);
      await api.reorderRules('sc_1', ['r'], w);
      await api.setLearning('sc_1', settings, w);
    }
    const urls = calls.map((c) => `${c.init.method} ${c.url}`);
    expect(urls.slice(0, 7).every((u) => !u.includes('write_file'))).toBe(true);
    expect(urls.slice(7)).toEqual([
      'PATCH /api/v1/scouts/sc_1?write_file=true',
      'POST /api/v1/scouts/sc_1/rules?write_file=true',
      'PUT /api/v1/scouts/sc_1/rules/r?write_file=true',
      'PATCH /api/v1/scouts/sc_1/rules/r?write_file=true',
      'DELETE /api/v1/scouts/sc_1/rules/r?write_file=true',
      'POST /api/v1/scouts/sc_1/rules/reorder?write_file=true',
      'PUT /api/v1/scouts/sc_1/learning?write_file=true',
    ]);
  });

  it('calls itself "window" inside the desktop window', () => {
    expect(clientName({ runtime: { EventsOn: () => {} } })).toBe('window');
    expect(clientName({})).toBe('browser');
  });
});

describe('error messages', () => {
  it('are sentences', () => {
    expect(sentence('folder /x does not exist')).toBe('Folder /x does not exist.');
    expect(sentence('Done!')).toBe('Done!');
  });

  it('say to retry when a dependency is down', () => {
    const e = errorFromResponse(503, { code: 'unavailable', error: 'the scout of suggestion sg_1 is not running' });
    expect(e.full).toBe('The scout of suggestion sg_1 is not running. Try again in a moment.');
  });
});
