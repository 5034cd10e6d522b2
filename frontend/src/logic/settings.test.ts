import { describe, expect, it } from 'vitest';
import { errorFromResponse, offlineError } from '../api/errors';
import { describeQuiet, explain, hasProblems, parseTime, quietProblems, shown, spansMidnight, withPatch } from './settings';

describe('times of day', () => {
  it('takes HH:MM, what time inputs give, and what people type', () => {
    expect(parseTime('22:00')).toBe('22:00');
    expect(parseTime('00:00')).toBe('00:00');
    expect(parseTime('23:59')).toBe('23:59');
    expect(parseTime('7:05')).toBe('07:05');
    expect(parseTime(' 07:30 ')).toBe('07:30');
    expect(parseTime('22:00:00')).toBe('22:00');
    expect(parseTime('22:00:00.000')).toBe('22:00');
  });

  it('refuses what the agent would refuse', () => {
    for (const v of ['', '24:00', '12:60', '7', '0700', '7:5', '07:00 PM', 'ab:cd', '-1:00', '007:00']) {
      expect(parseTime(v), v).toBeUndefined();
    }
  });
});

describe('quiet hours', () => {
  it('accepts two different times, overnight or not', () => {
    expect(quietProblems('22:00', '07:00')).toEqual({});
    expect(quietProblems('13:00', '14:30')).toEqual({});
    expect(hasProblems(quietProblems('9:00', '17:00'))).toBe(false);
  });

  it('says which field is wrong and how to write it', () => {
    const p = quietProblems('', '25:00');
    expect(p.start).toBe('Enter a time, like 22:00.');
    expect(p.end).toMatch(/“25:00” is not a time of day: use HH:MM, 24-hour/);
    expect(p.both).toBeUndefined();
    expect(hasProblems(p)).toBe(true);
    expect(quietProblems('22:00', 'noon')).toEqual({ end: expect.stringContaining('“noon”') });
  });

  it('refuses a start equal to the end: the agent would never be quiet', () => {
    const p = quietProblems('07:00', '7:00');
    expect(p.both).toMatch(/same time/);
    expect(hasProblems(p)).toBe(true);
  });

  it('spans midnight when the start is after the end, and says so', () => {
    expect(spansMidnight({ start: '22:00', end: '07:00' })).toBe(true);
    expect(spansMidnight({ start: '00:30', end: '06:00' })).toBe(false);
    expect(describeQuiet({ start: '22:00', end: '07:00' })).toBe(
      'No notifications from 22:00 until 07:00 the next morning.',
    );
    expect(describeQuiet({ start: '12:00', end: '14:00' })).toBe('No notifications from 12:00 until 14:00 the same day.');
  });
});

describe('changes on their way', () => {
  const stored = { notifications: true, autostart: false };

  it('apply on top of the stored settings, the newest last', () => {
    expect(shown(stored, [])).toBe(stored);
    expect(shown(stored, [{ autostart: true }, { notifications: false }, { autostart: false }])).toEqual({
      notifications: false,
      autostart: false,
    });
  });

  it('remove quiet hours with quiet_hours: undefined, which is then absent from the JSON', () => {
    const q = withPatch(stored, { quiet_hours: { start: '22:00', end: '07:00' } });
    expect(q.quiet_hours).toEqual({ start: '22:00', end: '07:00' });
    const off = withPatch(q, { quiet_hours: undefined });
    expect('quiet_hours' in off).toBe(false);
    expect(JSON.parse(JSON.stringify(off))).toEqual(stored);
    expect(withPatch(q, { autostart: true }).quiet_hours).toEqual({ start: '22:00', end: '07:00' });
  });
});

describe('why a change was not saved', () => {
  it('names the login entry and how to fix it when the agent cannot write it', () => {
    const err = errorFromResponse(503, {
      code: 'unavailable',
      error: 'autostart: autostart: mkdir /home/ann/.config/autostart: not a directory',
    });
    expect(explain('autostart', { autostart: true }, err)).toBe(
      'Could not add Scouts to the programs that start at login: mkdir /home/ann/.config/autostart: not a directory. ' +
        'Check that the autostart folder (~/.config/autostart on Linux) is a folder you can write to, then try again.',
    );
    expect(explain('autostart', { autostart: false }, err)).toMatch(/^Could not remove Scouts from the programs/);
  });

  it('otherwise says what the agent said and what to do', () => {
    expect(explain('notifications', { notifications: false }, offlineError())).toBe(
      'Not saved. The agent is not reachable. Is `scouts agent` running? Start it with `scouts agent --ui` and open the link it prints.',
    );
    const invalid = errorFromResponse(400, { code: 'invalid', error: 'quiet hours: "25:00" is not a time of day like 22:00' });
    expect(explain('quiet_hours', {}, invalid)).toBe('Not saved. Quiet hours: "25:00" is not a time of day like 22:00.');
  });
});
