import { describe, expect, it } from 'vitest';
import { age, preview, tildePath, tildeText, withArticle } from './format';

describe('formatting', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  it('says how old something is in words', () => {
    expect(age('2026-11-22T11:59:30Z', now)).toBe('just now');
    expect(age('2026-11-22T11:55:00Z', now)).toBe('5 min ago');
    expect(age('2026-11-22T09:00:00Z', now)).toBe('3 h ago');
    expect(age('2026-11-21T09:00:00Z', now)).toBe('yesterday');
    expect(age('2026-11-18T12:00:00Z', now)).toBe('4 days ago');
    expect(age(undefined, now)).toBe('');
  });

  it('shows paths under home with ~', () => {
    expect(tildePath('/home/ann/Scouts/Inbox', '/home/ann')).toBe('~/Scouts/Inbox');
    expect(tildePath('/home/anna/x', '/home/ann')).toBe('/home/anna/x');
    expect(tildePath('/srv/x', undefined)).toBe('/srv/x');
    expect(tildeText('New file in /home/ann/Drop; copied from /home/ann/x', '/home/ann')).toBe(
      'New file in ~/Drop; copied from ~/x',
    );
  });

  it('previews a body by its first line that is not the title', () => {
    expect(preview('# Pay the invoice\n\nDue Friday.\n', 'Pay the invoice')).toBe('Due Friday.');
    expect(preview('Meeting\nShip Monday', 'Other')).toBe('Meeting');
    expect(preview('x'.repeat(200), '', 10)).toBe('xxxxxxxxx…');
    expect(preview('# Title', 'Title')).toBe('');
  });
});

describe('articles', () => {
  it('an event, a task', () => {
    expect(['task', 'note', 'event', 'project'].map(withArticle)).toEqual(['a task', 'a note', 'an event', 'a project']);
  });
});
