// Lanes and the learner's explanations, in words: pure, for the cards, the
// lane bar and their tests.

import type { Assessment, EntityKind, Lane, Learning, Scout, Suggestion } from '../api/types';

export const LANE_LABEL: Record<Lane, string> = { inbox: 'Inbox', screened: 'Screened', spam: 'Spam' };

/** The key that shows each lane (see keys.ts). */
export const LANE_KEY: Record<Lane, string> = { inbox: '1', screened: '2', spam: '3' };

/** What each lane below the inbox holds, and how to get a card out. */
export const LANE_INTRO: Record<Lane, string> = {
  inbox: '',
  screened:
    'Cards your scouts’ learners are confident you would reject. Nothing is dropped: press b to bring one back to the inbox, which teaches the learner.',
  spam: 'Spam, by its source’s rules or by what you marked as spam. Press b to bring a card back to the inbox; ! confirms it is spam.',
};

const PLURAL: Record<EntityKind, string> = { task: 'tasks', note: 'notes', event: 'events', project: 'projects' };
const WITH_ARTICLE: Record<EntityKind, string> = { task: 'a task', note: 'a note', event: 'an event', project: 'a project' };

/** When what the person usually makes of such items and what the content
 * suggests differ, both, in words; else undefined. */
export function kindDisagreement(a: Assessment | undefined): string | undefined {
  if (!a?.learned_kind || !a.cue_kind || a.learned_kind === a.cue_kind) return undefined;
  const learned = PLURAL[a.learned_kind] ?? a.learned_kind;
  const cue = WITH_ARTICLE[a.cue_kind] ?? a.cue_kind;
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

/** Why a card waits below the inbox, in words. Beside a badge naming the
 * lane, short drops the lane's name and, when the card lists the evidence
 * anyway, the evidence the agent appends after a dash. */
export function laneReason(sg: Suggestion, short?: { evidenceShown: boolean }): string {
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
