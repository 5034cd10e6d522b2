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
});
