import { describe, expect, it } from 'vitest';
import { scout } from '../state/testdata';
import { autoFolders, dropPlaces } from './inbox';

describe('the empty inbox', () => {
  // The README's tour adds ~/Documents/Scans --include '*.pdf' and
  // ~/Notes --auto: an ordinary file dropped into either makes no card.
  const inbox = scout('a', { path: '/home/ann/Scouts/Inbox' });
  const scans = scout('b', { path: '/home/ann/Documents/Scans', include: ['*.pdf'] });
  const notes = scout('c', { path: '/home/ann/Notes', review: false });
  const off = scout('d', { path: '/home/ann/Old', enabled: false });

  it('names only folders where a dropped file makes a card, and which files do', () => {
    expect(dropPlaces([scans, notes, inbox, off], '/home/ann')).toEqual([
      { path: '~/Scouts/Inbox', files: 'a file' },
      { path: '~/Documents/Scans', files: 'a file matching *.pdf' },
    ]);
    expect(dropPlaces([notes, off], '/home/ann')).toEqual([]);
  });

  it('says which folders make entities without a card', () => {
    expect(autoFolders([inbox, scans, notes, off], '/home/ann')).toEqual(['~/Notes']);
  });
});
