import { describe, expect, it } from 'vitest';
import { settingsForm, settingsFromForm } from './learning';

describe('learning thresholds', () => {
  const cur = { cold_start: 30, screen_below: 0.1, spam_above: 0.9, min_spam: 10 };

  it('shows probabilities as percentages and reads them back', () => {
    const f = settingsForm(cur);
    expect(f).toEqual({ cold_start: '30', screen_below: '10', spam_above: '90' });
    expect(settingsFromForm(f, cur)).toEqual(cur);
    expect(settingsFromForm({ cold_start: '5', screen_below: '2.5', spam_above: '99' }, cur)).toEqual({
      cold_start: 5,
      screen_below: 0.025,
      spam_above: 0.99,
      min_spam: 10,
    });
  });

  it('says what is wrong before asking the agent', () => {
    expect(settingsFromForm({ cold_start: '', screen_below: '10', spam_above: '90' }, cur)).toMatch(/^Learn from/);
    expect(settingsFromForm({ cold_start: '2.5', screen_below: '10', spam_above: '90' }, cur)).toMatch(/^Learn from/);
    expect(settingsFromForm({ cold_start: '30', screen_below: '60', spam_above: '90' }, cur)).toMatch(/^Screen below/);
    expect(settingsFromForm({ cold_start: '30', screen_below: '10', spam_above: '40' }, cur)).toMatch(/^Spam above/);
    const form = { cold_start: '30', screen_below: '10', spam_above: '90' };
    expect(settingsFromForm({ ...form, silence_days: '-1' }, cur)).toMatch(/^Silence teaches after/);
    expect(settingsFromForm({ ...form, silence_days: '1.5' }, cur)).toMatch(/^Silence teaches after/);
    expect(settingsFromForm({ ...form, silence_days: '366' }, cur)).toMatch(/^Silence teaches after/);
  });

  it('keeps the grace period of silence, or changes it when the form says so', () => {
    const withSilence = { ...cur, silence_days: 7 };
    const f = settingsForm(withSilence);
    expect(f.silence_days).toBe('7');
    expect(settingsFromForm(f, withSilence)).toEqual(withSilence);
    expect(settingsFromForm({ ...f, silence_days: '0' }, withSilence)).toEqual({ ...withSilence, silence_days: 0 });
    // A form without the field leaves the scout's value as it is.
    expect(settingsFromForm({ cold_start: '30', screen_below: '10', spam_above: '90' }, withSilence)).toEqual(withSilence);
  });

  it('shows the gates in force and reads them back: cooldown in minutes, quiet hours both or neither', () => {
    const gated = { ...cur, cooldown_seconds: 300, notify_per_hour: 30, quiet_start: '', quiet_end: '' };
    const f = settingsForm(gated);
    expect(f).toMatchObject({ cooldown_minutes: '5', notify_per_hour: '30', quiet_start: '', quiet_end: '' });
    expect(settingsFromForm(f, gated)).toEqual(gated);
    const next = { ...f, cooldown_minutes: '2', notify_per_hour: '5', quiet_start: '22:00', quiet_end: '07:00' };
    expect(settingsFromForm(next, gated)).toEqual({
      ...gated,
      cooldown_seconds: 120,
      notify_per_hour: 5,
      quiet_start: '22:00',
      quiet_end: '07:00',
    });
    expect(settingsFromForm({ ...f, cooldown_minutes: '1.5' }, gated)).toMatchObject({ cooldown_seconds: 90 });
    expect(settingsForm({ ...gated, cooldown_seconds: 90 }).cooldown_minutes).toBe('1.5');
    expect(settingsFromForm({ ...next, quiet_end: '' }, gated)).toBe('Quiet hours: give both times, from and to, or neither.');
    expect(settingsFromForm({ ...next, quiet_start: '' }, gated)).toBe('Quiet hours: give both times, from and to, or neither.');
    expect(settingsFromForm({ ...next, quiet_end: '22:00' }, gated)).toMatch(/^Quiet hours: from and to must differ/);
    expect(settingsFromForm({ ...next, quiet_end: '7' }, gated)).toMatch(/^Quiet hours: times of day/);
    expect(settingsFromForm({ ...f, cooldown_minutes: '0' }, gated)).toMatch(/^Cooldown/);
    expect(settingsFromForm({ ...f, cooldown_minutes: '' }, gated)).toMatch(/^Cooldown/);
    expect(settingsFromForm({ ...f, notify_per_hour: '0' }, gated)).toMatch(/^Posts an hour/);
    expect(settingsFromForm({ ...f, notify_per_hour: '2.5' }, gated)).toMatch(/^Posts an hour/);
  });
});
