// An entity's editable fields as form strings, and back to the API's input
// with only what changed, so that an untouched field keeps the agent's own
// value (e.g. the item's full text as the body of an approved note).

import type { Entity, EntityFields, EntityInput, EntityKind, Suggestion } from '../api/types';
import { dateTime, day, fromDateTimeInput, toDateInput, toDateTimeInput } from './format';

export interface FormFields {
  title: string;
  body: string;
  /** <input type="date"> value. */
  due: string;
  project_id: string;
  /** <input type="datetime-local"> values, local time. */
  starts_at: string;
  ends_at: string;
  location: string;
}

export const emptyForm: FormFields = {
  title: '',
  body: '',
  due: '',
  project_id: '',
  starts_at: '',
  ends_at: '',
  location: '',
};

export function formFromEntity(e: Partial<Entity>): FormFields {
  return {
    title: e.title ?? '',
    body: e.body ?? '',
    due: toDateInput(e.due),
    project_id: e.project_id ?? '',
    starts_at: toDateTimeInput(e.starts_at),
    ends_at: toDateTimeInput(e.ends_at),
    location: e.location ?? '',
  };
}

/** Which fields a kind has besides title and body. */
export const KIND_FIELDS: Record<EntityKind, ReadonlyArray<keyof FormFields>> = {
  task: ['due', 'project_id'],
  note: [],
  event: ['starts_at', 'ends_at', 'location'],
  project: [],
};

/** The input for the fields of kind that differ from base. An emptied date
 * is sent as "" (the API clears it). */
export function changedFields(kind: EntityKind, form: FormFields, base: FormFields): EntityInput {
  const out: EntityInput = {};
  if (form.title.trim() !== base.title.trim()) out.title = form.title.trim();
  if (form.body !== base.body) out.body = form.body;
  for (const f of KIND_FIELDS[kind]) {
    if (form[f] === base[f]) continue;
    switch (f) {
      case 'due':
        out.due = form.due;
        break;
      case 'starts_at':
        out.starts_at = fromDateTimeInput(form.starts_at);
        break;
      case 'ends_at':
        out.ends_at = fromDateTimeInput(form.ends_at);
        break;
      case 'project_id':
        out.project_id = form.project_id;
        break;
      case 'location':
        out.location = form.location;
        break;
    }
  }
  return out;
}

/** What is wrong with the form, in words, before asking the agent. */
export function formProblem(kind: EntityKind, form: FormFields): string | undefined {
  if (!form.title.trim()) return 'A title is needed.';
  if (kind === 'event' && form.starts_at && form.ends_at && form.ends_at < form.starts_at) {
    return 'The event ends before it starts.';
  }
  return undefined;
}

/** The fields a card's content proposes for an entity of kind (a due date
 * read from "due Friday", an event's time, a project named in it), as the
 * API takes them. A date alone serves as a task's due day or an event's
 * start. */
export function proposedFields(sg: Suggestion, kind: EntityKind): EntityFields {
  const a = sg.assessment;
  if (!a) return {};
  const out: EntityFields = {};
  if (kind === 'task') {
    const due = toDateInput(a.due ?? a.starts_at);
    if (due) out.due = due;
    if (a.project_id) out.project_id = a.project_id;
  } else if (kind === 'event') {
    const start = a.starts_at ?? a.due;
    if (start) out.starts_at = start;
    if (a.ends_at) out.ends_at = a.ends_at;
  }
  return out;
}

/** The title the model proposes for the entity, for the approve preview
 * to offer while the form's title is another: "" when there is none to
 * offer. */
export function titleOffer(sg: Suggestion, title: string): string {
  const proposed = sg.assessment?.proposed_title?.trim() ?? '';
  return proposed && proposed !== title.trim() ? proposed : '';
}

/** The approve preview's form for a card: base (its title and text) with
 * every field its content proposes, whichever kind the person picks. */
export function proposedForm(sg: Suggestion, base: FormFields): FormFields {
  const a = sg.assessment;
  if (!a) return base;
  return {
    ...base,
    due: toDateInput(a.due ?? a.starts_at) || base.due,
    project_id: a.project_id || base.project_id,
    starts_at: toDateTimeInput(a.starts_at ?? a.due) || base.starts_at,
    ends_at: toDateTimeInput(a.ends_at) || base.ends_at,
  };
}

/** The date a card's content proposes for its proposed kind, in words
 * ("due Fri 27 Nov 2026"; an event's start), or "". */
export function proposedWhen(sg: Suggestion): string {
  const a = sg.assessment;
  if (!a) return '';
  if (sg.proposed_kind === 'task') {
    const due = a.due ?? a.starts_at;
    return due ? `due ${day(due)}` : '';
  }
  if (sg.proposed_kind === 'event') {
    const start = a.starts_at ?? a.due;
    if (!start) return '';
    return a.all_day ? day(start) : dateTime(start);
  }
  return '';
}
