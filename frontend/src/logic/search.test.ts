import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../api/search';
import { KeyMap, SHORTCUTS } from './keys';
import { eventIcsHref } from './ics';
import {
  cardGroup,
  flatten,
  groupHits,
  highlight,
  hitHref,
  matchedFields,
  move,
  queryFilters,
  queryTerms,
  searchKey,
  searchProblem,
} from './search';

const hit = (h: Partial<SearchHit> & Pick<SearchHit, 'type' | 'id'>): SearchHit => ({
  title: h.id,
  snippet: '',
  at: '2026-05-03T10:00:00Z',
  ...h,
});

describe('search results', () => {
  it('groups cards by lane (pending) or status (decided), then tasks, notes, events, projects', () => {
    const hits = [
      hit({ type: 'event', id: 'ev1' }),
      hit({ type: 'card', id: 'sg1', lane: 'inbox', status: 'pending' }),
      hit({ type: 'task', id: 'tk1' }),
      hit({ type: 'card', id: 'sg2', lane: 'spam', status: 'pending' }),
      hit({ type: 'card', id: 'sg3', lane: 'inbox', status: 'approved' }),
      hit({ type: 'card', id: 'sg4', lane: 'inbox', status: 'pending' }),
      hit({ type: 'project', id: 'pj1' }),
      hit({ type: 'note', id: 'nt1' }),
    ];
    const groups = groupHits(hits);
    expect(groups.map((g) => [g.label, g.hits.map((h) => h.id)])).toEqual([
      ['Cards · Inbox', ['sg1', 'sg4']],
      ['Cards · Spam', ['sg2']],
      ['Cards · Approved', ['sg3']],
      ['Tasks', ['tk1']],
      ['Notes', ['nt1']],
      ['Events', ['ev1']],
      ['Projects', ['pj1']],
    ]);
    // ↓ walks the hits in the order they are shown, not the agent's.
    expect(flatten(groups).map((h) => h.id)).toEqual(['sg1', 'sg4', 'sg2', 'sg3', 'tk1', 'nt1', 'ev1', 'pj1']);
    expect(groupHits([])).toEqual([]);
  });

  it('names a card group by lane while pending and by the decision after', () => {
    expect(cardGroup(hit({ type: 'card', id: 'a', lane: 'screened', status: 'pending' }))).toBe('Cards · Screened');
    expect(cardGroup(hit({ type: 'card', id: 'a', lane: 'snoozed', status: 'pending' }))).toBe('Cards · Snoozed');
    expect(cardGroup(hit({ type: 'card', id: 'a', lane: 'spam', status: 'rejected' }))).toBe('Cards · Rejected');
    expect(cardGroup(hit({ type: 'card', id: 'a', status: 'expired' }))).toBe('Cards · Expired');
  });

  it('opens a card on its page and an entity in its list', () => {
    expect(hitHref(hit({ type: 'card', id: 'sg_1' }))).toBe('#/suggestion/sg_1');
    expect(hitHref(hit({ type: 'task', id: 'tk_1' }))).toBe('#/tasks/tk_1');
    expect(hitHref(hit({ type: 'note', id: 'nt_1' }))).toBe('#/notes/nt_1');
    expect(hitHref(hit({ type: 'event', id: 'ev_1' }))).toBe('#/events/ev_1');
    expect(hitHref(hit({ type: 'project', id: 'pj_1' }))).toBe('#/projects/pj_1');
  });

  it('marks the words typed, not the filters or the left-out words', () => {
    expect(queryTerms('from:ana lisb -hotels "contract draft" Re: kind:task')).toEqual(['lisb', 'contract draft', 're']);
    expect(queryFilters('from:ana lisb lane:inbox scout:"Work mail"')).toEqual(['from:ana', 'lane:inbox', 'scout:"Work mail"']);
    expect(highlight('Workshop in Lisbon, lisbon again', ['lisb'])).toEqual([
      { text: 'Workshop in ', match: false },
      { text: 'Lisb', match: true },
      { text: 'on, ', match: false },
      { text: 'lisb', match: true },
      { text: 'on again', match: false },
    ]);
    // A prefix of a word only, as the agent matches: not inside a word.
    expect(highlight('unlisbed', ['lisb'])).toEqual([{ text: 'unlisbed', match: false }]);
    // What is typed is text, not a pattern.
    expect(highlight('abc a.c', ['a.'])).toEqual([
      { text: 'abc ', match: false },
      { text: 'a.', match: true },
      { text: 'c', match: false },
    ]);
    expect(highlight('', ['x'])).toEqual([]);
  });

  it('says where a hit matched', () => {
    const h = hit({ type: 'card', id: 'a', title: 'Invoice 2231', sender: 'Ana <ana@example.com>', snippet: 'the invoice' });
    expect(matchedFields(h, ['invoice'])).toEqual(['title', 'text']);
    expect(matchedFields(h, ['ana'])).toEqual(['sender']);
    expect(matchedFields(h, [])).toEqual([]);
  });
});

describe('a query the agent refuses', () => {
  it('is said with the filter as typed, not capitalised', () => {
    expect(searchProblem('Lane:archive is not a lane: use inbox, screened or spam.', 'lisb lane:archive')).toBe(
      'lane:archive is not a lane: use inbox, screened or spam.',
    );
    expect(searchProblem('Nothing to search for.', '-x')).toBe('Nothing to search for.');
  });
});

describe('search keys', () => {
  it('/ focuses the search from any view, but is text in a field', () => {
    const k = new KeyMap(() => 0);
    expect(k.handle({ key: '/' })).toEqual({ type: 'search' });
    expect(k.handle({ key: '/', editing: true })).toBeUndefined();
  });

  it('in the box, letters are the query; on a result, j and k move too', () => {
    expect(searchKey('ArrowDown', true)).toBe('next');
    expect(searchKey('ArrowUp', true)).toBe('prev');
    expect(searchKey('Enter', true)).toBe('open');
    expect(searchKey('Escape', true)).toBe('close');
    expect(searchKey('j', true)).toBeUndefined();
    expect(searchKey('k', true)).toBeUndefined();
    expect(searchKey('/', true)).toBeUndefined();
    expect(searchKey('j', false)).toBe('next');
    expect(searchKey('k', false)).toBe('prev');
    expect(searchKey('/', false)).toBe('input');
    expect(searchKey('x', false)).toBeUndefined();
  });

  it('moves down to the last hit and up past the first back to the box', () => {
    expect(move(-1, 3, 'next')).toBe(0);
    expect(move(2, 3, 'next')).toBe(2);
    expect(move(0, 3, 'prev')).toBe(-1);
    expect(move(-1, 3, 'prev')).toBe(-1);
    expect(move(-1, 0, 'next')).toBe(-1);
  });

  it('lists / and every filter in the help', () => {
    const all = SHORTCUTS.flatMap((s) => s.keys.map(([k]) => k));
    expect(all).toContain('/');
    for (const f of ['from:', 'kind:', 'lane:', 'scout:', 'after:', 'before:', 'is:']) {
      expect(all.some((k) => k.startsWith(f))).toBe(true);
    }
  });
});

describe('an event’s .ics', () => {
  it('is the agent’s own download, on the page’s origin', () => {
    expect(eventIcsHref('ev_1/x')).toBe('/api/v1/events/ev_1%2Fx/ics');
  });
});
