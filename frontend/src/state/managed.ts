// Changes to a scout a definitions file manages. The agent refuses them
// (409 "managed by NAME — edit the file …"): the file decides the scout,
// and its next edit would undo a change made behind its back. Every place
// that changes a scout — the card's switches, the rules, the learning
// thresholds — goes through changeManaged, so each refusal offers the
// same way out: make the change again, writing it to the file
// (?write_file=true).

import { asApiError } from '../api/errors';
import { managedFile } from '../logic/definitions';
import type { Toaster } from '../logic/toasts';

/** A change the agent refused because a definitions file manages the
 * scout. */
export interface ManagedRefusal<T> {
  /** The file's name ("scans.yaml"). */
  file: string;
  /** What happened and what the person can do, in words. */
  text: string;
  /** The offer's button: "Write to scans.yaml". */
  label: string;
  /** Makes the change again, writing it to the file too. */
  write: () => Promise<T>;
}

const quote = (s: string) => `“${s.length > 60 ? s.slice(0, 59) + '…' : s}”`;

/** Makes a change to a scout (change(false)). Refused because a
 * definitions file manages the scout, it resolves to the refusal, whose
 * write() makes the same change asking the agent to write the file
 * (change(true)). Any other failure rejects, as the change's own error. */
export async function changeManaged<T>(
  scoutName: string,
  change: (writeFile: boolean) => Promise<T>,
): Promise<{ done: T } | { refused: ManagedRefusal<T> }> {
  try {
    return { done: await change(false) };
  } catch (e) {
    const err = asApiError(e);
    const file = managedFile(err);
    if (!file) throw err;
    return {
      refused: {
        file,
        text: `Not changed: the definitions file ${file} decides scout ${quote(scoutName)}. Edit the file, or write this change to it.`,
        label: `Write to ${file}`,
        write: () => change(true),
      },
    };
  }
}

/** Shows a refusal as an error toast whose button writes the change to
 * the file; then runs once it is made, and a failure says what failed. */
export function offerWriteFile<T>(
  ui: { toaster: Toaster; fail(what: string, e: unknown): unknown },
  r: ManagedRefusal<T>,
  what: string,
  then?: (v: T) => unknown,
): void {
  ui.toaster.show({
    tone: 'error',
    text: r.text,
    action: {
      label: r.label,
      run: () =>
        void r
          .write()
          .then(then)
          .catch((e) => ui.fail(what, e)),
    },
  });
}
