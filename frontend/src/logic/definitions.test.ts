import { describe, expect, it } from 'vitest';
import type { ScoutVersion } from '../api/definitions';
import {
  actorText,
  changeText,
  definitionText,
  parseDefinitionText,
  pathText,
  previousVersion,
  riskLabel,
  validityText,
  versionWhat,
} from './definitions';

const v = (version: number, actor: string, note?: string): ScoutVersion => ({
  version,
  actor,
  note,
  created_at: '2026-05-01T10:00:00Z',
  document: {},
});

describe('actorText', () => {
  it('names who made a version in words', () => {
    expect(actorText('window')).toBe('the window');
    expect(actorText('browser')).toBe('the window (in a browser)');
    expect(actorText('cli')).toBe('the command line');
    expect(actorText('api')).toBe('the API');
    expect(actorText('file:scans.yaml')).toBe('the file scans.yaml');
    expect(actorText('something-new')).toBe('something-new');
  });
});

describe('versionWhat', () => {
  it('says what a version was', () => {
    expect(versionWhat(v(3, 'window', 'rollback to version 1'))).toBe('Rolled back to version 1');
    expect(versionWhat(v(1, 'window', 'created'))).toBe('Created');
    expect(versionWhat(v(2, 'cli', 'import'))).toBe('Imported');
    expect(versionWhat(v(4, 'window', 'rule "invoices" added'))).toBe('Rule “invoices” added');
    expect(versionWhat(v(5, 'file:a.yaml'))).toBe('Its file changed');
    expect(versionWhat(v(6, 'api'))).toBe('Changed');
  });
});

describe('changes', () => {
  it('reads a JSON pointer as words, counting from 1', () => {
    expect(pathText('/source/include/0')).toBe('source › include › 1');
    expect(pathText('/learning/cold_start')).toBe('learning › cold start');
    expect(pathText('/a~1b')).toBe('a/b');
  });
  it('says added, removed or changed', () => {
    expect(changeText({ path: '/name', from: '"One"', to: '"Two"' })).toEqual({
      path: 'name',
      kind: 'changed',
      text: 'name: "One" → "Two"',
    });
    expect(changeText({ path: '/rules/0/id', to: '"pdf"' }).kind).toBe('added');
    expect(changeText({ path: '/schedule/cron', from: '"@hourly"' }).text).toBe('schedule › cron: removed (was "@hourly")');
  });
  it('compares a version with the one before it', () => {
    const list = [v(4, 'window'), v(2, 'cli'), v(1, 'window')];
    expect(previousVersion(list, 4)).toBe(2);
    expect(previousVersion(list, 1)).toBeUndefined();
  });
});

describe('definition text', () => {
  it('shows a document as pretty JSON and reads it back', () => {
    const doc = { version: 1, kind: 'folder', name: 'Scans' };
    const text = definitionText(doc);
    expect(text).toContain('\n  "kind": "folder"');
    expect(parseDefinitionText(text)).toEqual({ doc });
    expect(definitionText('not json')).toBe('not json');
  });
  it('says where an edit broke the JSON', () => {
    const r = parseDefinitionText('{\n  "version": 1,\n  "name": oops\n}');
    expect('error' in r && r.error).toMatch(/^(Line 3: t|T)his is not valid JSON \(.*'o'/);
    expect(parseDefinitionText('  ')).toEqual({ error: 'The definition is empty.' });
  });
  it('names the risk flags', () => {
    expect(riskLabel('auto_create')).toBe('Auto-create');
    expect(riskLabel('new_code')).toBe('new code');
    expect(riskLabel('missing_folder')).toBe('Missing folder');
  });
  it('says a valid draft cannot be created until its folder exists', () => {
    expect(validityText({ risks: [{ code: 'broad_glob', message: '' }] })).toBe(
      'Valid: the agent can create this scout.',
    );
    expect(validityText({ risks: [{ code: 'missing_folder', message: '' }] })).toBe(
      'Valid, but its folder does not exist yet: make it, then create the scout.',
    );
  });
});
