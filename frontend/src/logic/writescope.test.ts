import { describe, expect, it } from 'vitest';
import { scopeLines } from './writescope';

const def = {
  folders: { globs: ['~/Sorted/**'], default: true },
  labels: { globs: ['Scouts/**'], default: true },
  hosts: { globs: ['localhost', '127.0.0.1', '::1'], default: true },
};

describe('scopeLines', () => {
  it('names what each kind writes, and where the list comes from', () => {
    expect(scopeLines('folder', def)).toEqual([
      { what: 'Moves files into', globs: '~/Sorted/**', source: 'the default for a folder scout' },
      { what: 'Posts to', globs: 'localhost, 127.0.0.1, ::1', source: 'the default: this computer only' },
    ]);
    expect(scopeLines('gmail', { ...def, labels: { globs: [], default: false } })[0]).toEqual({
      what: 'Adds the labels',
      globs: 'nothing',
      source: 'set in its definition',
    });
    expect(scopeLines('webhook', def).map((l) => l.what)).toEqual(['Posts to']);
    expect(scopeLines('folder', undefined)).toEqual([]);
  });
});
