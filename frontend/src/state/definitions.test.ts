import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../api/stream';
import { Store } from './store';

// The Scouts view lists broken definitions files and says which scouts a
// file manages. It reads them again whenever the agent says it has read
// its definitions folder, so a file broken, fixed or removed shows without
// reopening the view.
describe('the definitions folder, live', () => {
  const reconciled = (data: string) => {
    const ev = decodeEvent('definitions.reconciled', data, '7');
    expect(ev, 'the stream decodes definitions.reconciled').toBeDefined();
    return ev!;
  };

  it('asks for the folder’s status again after each reconcile, broken or clean', () => {
    const store = new Store();
    const seen: number[] = [];
    store.subscribe(() => seen.push(store.state.definitionsSeq));
    store.event(reconciled('{"definition_errors":[{"file":"broken.yaml","line":3,"reason":"did not find expected node content"}]}'));
    store.event(reconciled('{"definition_errors":null}'));
    expect(seen).toEqual([1, 2]);
  });

  it('asks again after a reset, when a reconcile may have been among the events lost', () => {
    const store = new Store();
    store.event(reconciled('{"definition_errors":[]}'));
    store.event(decodeEvent('reset', '{"reason":"events since your last id are no longer kept"}')!);
    expect(store.state.definitionsSeq).toBe(2);
  });
});
