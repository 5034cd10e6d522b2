// Lanes and the learner's explanations, in words: pure, for the cards, the
// lane bar and their tests.

import type { Assessment, EntityKind, Lane, Learning, Scout, Suggestion } from '../api/types';
import { withArticle } from './format';

export const LANE_LABEL: Record<Lane, string> = { inbox: 'Inbox', screened: 'Screened', spam: 'Spam', snoozed: 'Snoozed' };

/** The key that shows each lane (see keys.ts). */
export const LANE_KEY: Record<Lane, string> = { inbox: '1', screened: '2', spam: '3', snoozed: '4' };

/** What each lane below the inbox holds, and how to get a card out. */
export const LANE_INTRO: Record<Lane, string> = {
  inbox: '',
  screened:
    'Cards your scouts held back: ones you would likely reject, senders you have not answered yet, and mail from familiar senders that reads like spam. Each says why. Nothing is dropped: press b to bring one back to the inbox, which teaches the learner.',
  spam: 'Spam, by its source’s rules or by what you marked as spam. Press b to bring a card back to the inbox; ! confirms it is spam.',
  snoozed:
    'Cards you put off. Each returns to the top of the inbox at its time, with a notification. Press b to take one back now, z to change its time; snoozing teaches nothing.',
};

const PLURAL: Record<EntityKind, string> = { task: 'tasks', note: 'notes', event: 'events', project: 'projects' };

/** When what the person usually makes of such items and what the content
 * suggests differ, both, in words; else undefined. */
export function kindDisagreement(a: Assessment | undefined): string | undefined {
  if (!a?.learned_kind || !a.cue_kind || a.learned_kind === a.cue_kind) return undefined;
  const learned = PLURAL[a.learned_kind] ?? a.learned_kind;
  const cue = withArticle(a.cue_kind);
  return `you usually make these into ${learned}; the content looks like ${cue}`;
}

/** The evidence behind a card, in plain words, decisive first. */
export function evidence(sg: Suggestion): string[] {
  const a = sg.assessment;
  if (!a) return [];
  const out = (a.why ?? []).filter((w) => w.trim() !== '');
  const d = kindDisagreement(a);
  if (d) out.push(d);
  return out;
}

/** Where a hint of a card's evidence comes from. */
export type HintSource = 'rule' | 'learned' | 'model' | 'content';

/** Each source's label on the card: a hint read from the content is not
 * "learned" (a card of a learner with 0 decisions said so). */
export const HINT_FROM: Record<HintSource, string> = {
  rule: 'Your rule',
  learned: 'Learned from your decisions',
  model: 'From the model',
  content: 'From its content',
};

/** Where a hint comes from, by how the agent words each source's: the
 * rule's "rule “id”: …", the model's "the model: …", the learner's "you
 * approved 9 of 10 from this sender", "words like …", "you made 12 … into
 * tasks"; the content cues' everything else ("mentions a date: …", "asks
 * for action: …", "a document (pdf)"). */
export function hintSource(hint: string): HintSource {
  if (hint.startsWith('rule “')) return 'rule';
  if (hint.startsWith('the model')) return 'model';
  if (hint.startsWith('you ') || hint.startsWith('words like ')) return 'learned';
  return 'content';
}

/** A card's evidence grouped by where it comes from, in the order
 * decisive first: the rule, the learner, the model, the content. */
export function evidenceBySource(sg: Suggestion): { from: HintSource; label: string; hints: string[] }[] {
  const groups = new Map<HintSource, string[]>();
  for (const h of evidence(sg)) {
    const from = hintSource(h);
    groups.set(from, [...(groups.get(from) ?? []), h]);
  }
  return (['rule', 'learned', 'model', 'content'] as const)
    .filter((from) => groups.has(from))
    .map((from) => ({ from, label: HINT_FROM[from], hints: groups.get(from)! }));
}

/** Why a card waits below the inbox, in words. Beside a badge naming the
 * lane, short drops the lane's name and, when the card lists the evidence
 * anyway, the evidence the agent appends after a dash. */
export function laneReason(sg: Suggestion, short?: { evidenceShown: boolean }): string {
  if (sg.lane === 'snoozed' && sg.snoozed_until) {
    const at = new Date(sg.snoozed_until).toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
    return short ? `Until ${at}` : `Snoozed until ${at}`;
  }
  let r = sg.assessment?.lane_reason ?? '';
  if (!short) return r || (sg.lane === 'screened' ? 'Screened' : sg.lane === 'spam' ? 'Spam' : '');
  r = r.replace(/^(Screened|Spam):\s*/, '');
  const dash = r.indexOf(' — ');
  if (short.evidenceShown && dash > 0) r = r.slice(0, dash);
  return r.charAt(0).toUpperCase() + r.slice(1);
}

/** "Drop is learning — 12 of 30 decisions": the learners still in their
 * cold start (nothing is screened until they are done), else how much the
 * trained ones learned. Only scouts whose cards wait for review count. */
export function learningSummary(scouts: readonly Scout[], learning: Readonly<Record<string, Learning>>): string {
  const known = scouts.filter((sc) => sc.enabled && sc.review && learning[sc.id]);
  const cold = known.filter((sc) => !learning[sc.id]!.trained);
  const list = cold.length > 0 ? cold : known;
  return list.map((sc) => `${sc.name}: ${learning[sc.id]!.state}`).join(' · ');
}
