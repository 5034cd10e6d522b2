import { describe, expect, it } from 'vitest';
import { changedFields, emptyForm, formFromEntity, formProblem } from './fields';

describe('entity fields', () => {
  it('sends only what changed, so untouched fields keep the agent’s value', () => {
    const base = { ...emptyForm, title: 'Pay the invoice', body: 'full text' };
    expect(changedFields('task', base, base)).toEqual({});
    expect(changedFields('task', { ...base, title: ' Pay it ', due: '2026-12-01' }, base)).toEqual({
      title: 'Pay it',
      due: '2026-12-01',
    });
  });

  it('ignores fields the kind does not have', () => {
    const base = { ...emptyForm, title: 'x' };
    expect(changedFields('note', { ...base, due: '2026-12-01', location: 'Berlin' }, base)).toEqual({});
  });

  it('clears a date with an empty string', () => {
    const e = formFromEntity({ kind: 'task', title: 'x', due: '2026-12-01T00:00:00Z' });
    expect(changedFields('task', { ...e, due: '' }, e)).toEqual({ due: '' });
  });

  it('sends event times as RFC 3339', () => {
    const base = { ...emptyForm, title: 'Talk' };
    const out = changedFields('event', { ...base, starts_at: '2026-03-01T10:00' }, base);
    expect(out.starts_at).toBe(new Date('2026-03-01T10:00').toISOString());
  });

  it('round-trips an entity through the form', () => {
    const iso = new Date(2026, 2, 1, 9, 30).toISOString();
    const f = formFromEntity({ kind: 'event', title: 'Talk', starts_at: iso, location: 'Room 1' });
    expect(f.starts_at).toBe('2026-03-01T09:30');
    expect(changedFields('event', f, f)).toEqual({});
  });

  it('says what is wrong before asking the agent', () => {
    expect(formProblem('task', { ...emptyForm, title: '  ' })).toBe('A title is needed.');
    expect(
      formProblem('event', { ...emptyForm, title: 'x', starts_at: '2026-03-01T10:00', ends_at: '2026-03-01T09:00' }),
    ).toBe('The event ends before it starts.');
    expect(formProblem('note', { ...emptyForm, title: 'x' })).toBeUndefined();
  });
});
