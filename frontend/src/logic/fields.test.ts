import { describe, expect, it } from 'vitest';
import { sug } from '../state/testdata';
import {
  changedFields,
  emptyForm,
  formFromEntity,
  formProblem,
  proposedFields,
  proposedForm,
  proposedWhen,
  titleOffer,
} from './fields';

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

describe('fields the content proposes', () => {
  // Local times, as the agent reads "due Friday" in the user's zone.
  const friday = new Date(2026, 10, 27).toISOString();
  const at10 = new Date(2026, 10, 27, 10, 0).toISOString();
  const at11 = new Date(2026, 10, 27, 11, 0).toISOString();

  it('pre-fill the approve preview, and are sent as changes', () => {
    const sg = sug('a', { proposed_kind: 'task', assessment: { approve: -1, spam: -1, due: friday, all_day: true, project_id: 'pj_1' } });
    const base = { ...emptyForm, title: 'Pay the ACME invoice' };
    const form = proposedForm(sg, base);
    expect(form).toMatchObject({ due: '2026-11-27', project_id: 'pj_1', starts_at: '2026-11-27T00:00' });
    expect(changedFields('task', form, base)).toEqual({ due: '2026-11-27', project_id: 'pj_1' });
    expect(proposedWhen(sg)).toMatch(/^due .*27/);
  });

  it('give an event its time, and a task the day of an event-like date', () => {
    const sg = sug('a', { proposed_kind: 'event', assessment: { approve: -1, spam: -1, starts_at: at10, ends_at: at11 } });
    expect(proposedFields(sg, 'event')).toEqual({ starts_at: at10, ends_at: at11 });
    expect(proposedFields(sg, 'task')).toEqual({ due: '2026-11-27' });
    expect(proposedFields(sg, 'note')).toEqual({});
    expect(proposedForm(sg, emptyForm)).toMatchObject({ starts_at: '2026-11-27T10:00', ends_at: '2026-11-27T11:00' });
  });

  it('offer the model’s title while the form has another, sent as a change once used', () => {
    const sg = sug('a', {
      title: 'Homepage copy for the relaunch',
      assessment: { approve: -1, spam: -1, kind_from: 'model', proposed_title: 'Send the homepage copy' },
    });
    const base = { ...emptyForm, title: sg.title };
    expect(titleOffer(sg, base.title)).toBe('Send the homepage copy');
    const used = { ...base, title: titleOffer(sg, base.title) };
    expect(titleOffer(sg, used.title)).toBe('');
    expect(changedFields('task', used, base)).toEqual({ title: 'Send the homepage copy' });
    expect(titleOffer(sug('a'), 'x')).toBe('');
  });

  it('leave everything as it was without a proposal', () => {
    expect(proposedForm(sug('a'), emptyForm)).toEqual(emptyForm);
    expect(proposedFields(sug('a'), 'task')).toEqual({});
    expect(proposedWhen(sug('a', { proposed_kind: 'task' }))).toBe('');
  });
});
