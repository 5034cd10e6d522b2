import { describe, expect, it } from 'vitest';
import { splitCommand } from './mcp';

describe('splitCommand', () => {
  it('splits a command line on spaces, keeping quoted words whole', () => {
    expect(splitCommand('npx -y @modelcontextprotocol/server-filesystem /home/me/notes')).toEqual([
      'npx',
      '-y',
      '@modelcontextprotocol/server-filesystem',
      '/home/me/notes',
    ]);
    expect(splitCommand(`node  server.js "/home/me/My Notes" 'it''s' ""`)).toEqual([
      'node',
      'server.js',
      '/home/me/My Notes',
      'its',
      '',
    ]);
  });
});
