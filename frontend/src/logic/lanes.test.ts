import { describe, expect, it } from 'vitest';
import type { Learning } from '../api/types';
import { scout, sug } from '../state/testdata';
import { evidence, evidenceBySource, kindDisagreement, laneReason, learningSummary } from './lanes';

describe('explanations', () => {
  it('name the evidence, and both kinds when the learner and the content disagree', () => {
    const sg = sug('a', {
      assessment: {
        approve: 0.9,
        spam: 0.01,
        learned_kind: 'note',
        cue_kind: 'task',
        why: ['you approved 9 of 10 from this sender', 'words like “invoice”, “due”'],
      },
    });
    expect(evidence(sg)).toEqual([
      'you approved 9 of 10 from this sender',
      'words like “invoice”, “due”',
      'you usually make these into notes; the content looks like a task',
    ]);
  });

  it('say nothing when there is nothing to say', () => {
    expect(evidence(sug('a'))).toEqual([]);
    expect(kindDisagreement({ approve: -1, spam: -1, learned_kind: 'event', cue_kind: 'event' })).toBeUndefined();
    expect(kindDisagreement({ approve: -1, spam: -1, cue_kind: 'event' })).toBeUndefined();
    expect(kindDisagreement({ approve: -1, spam: -1, learned_kind: 'task', cue_kind: 'event' })).toBe(
      'you usually make these into tasks; the content looks like an event',
    );
  });

  it('say why a card is below the inbox', () => {
    const reason = 'Screened: you are unlikely to approve it (4 %)';
    expect(laneReason(sug('a', { lane: 'screened', assessment: { approve: 0.04, spam: -1, lane_reason: reason } }))).toBe(
      reason,
    );
    expect(laneReason(sug('a', { lane: 'spam' }))).toBe('Spam');
    // Beside the lane's badge, and the evidence listed below it.
    const long = 'Screened: you are unlikely to approve it (4 %) — you rejected 9 from this sender';
    const sg = sug('a', { lane: 'screened', assessment: { approve: 0.04, spam: -1, lane_reason: long } });
    expect(laneReason(sg, { evidenceShown: true })).toBe('You are unlikely to approve it (4 %)');
    expect(laneReason(sg, { evidenceShown: false })).toBe('You are unlikely to approve it (4 %) — you rejected 9 from this sender');
  });
});

describe('the learners’ state', () => {
  const l = (id: string, state: string, trained: boolean) =>
    ({ scout_id: id, state, trained, decisions: 0, spam_decisions: 0, ham_decisions: 0, features: 0 }) as Learning;

  it('names the scouts still learning, else how much the others learned', () => {
    const drop = scout('a', { name: 'Drop' });
    const mail = scout('b', { name: 'Mail' });
    const auto = scout('c', { name: 'Auto', review: false });
    const learning = {
      a: l('a', 'learning — 12 of 30 decisions', false),
      b: l('b', 'trained on 42 decisions', true),
      c: l('c', 'learning — 0 of 30 decisions', false),
    };
    expect(learningSummary([drop, mail, auto], learning)).toBe('Drop: learning — 12 of 30 decisions');
    expect(learningSummary([mail], learning)).toBe('Mail: trained on 42 decisions');
    expect(learningSummary([drop], {})).toBe('');
  });
});

describe('where each hint comes from', () => {
  it('says a hint read from the content is from its content, not learned (a learner with 0 decisions)', () => {
    const sg = sug('a', {
      assessment: {
        approve: -1,
        spam: -1,
        learning: 'learning — 0 of 30 decisions',
        why: ['mentions a date: Fri 27 Nov', 'asks for action: “pay”, “invoice”'],
      },
    });
    expect(evidenceBySource(sg)).toEqual([
      { from: 'content', label: 'From its content', hints: ['mentions a date: Fri 27 Nov', 'asks for action: “pay”, “invoice”'] },
    ]);
  });

  it('groups the rule, the learner, the model and the content, decisive first', () => {
    const sg = sug('a', {
      assessment: {
        approve: 0.9,
        spam: 0.01,
        learned_kind: 'note',
        cue_kind: 'task',
        why: [
          'rule “invoices”: subject contains the word "invoice"',
          'you approved 9 of 10 from this sender',
          'words like “invoice”, “due”',
          'mentions a date: Fri 27 Nov',
          'the model: a task (due 27 Nov)',
        ],
      },
    });
    expect(evidenceBySource(sg).map((g) => [g.label, g.hints.length])).toEqual([
      ['Your rule', 1],
      ['Learned from your decisions', 3],
      ['From the model', 1],
      ['From its content', 1],
    ]);
  });
});

