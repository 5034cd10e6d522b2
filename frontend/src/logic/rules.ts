// The rules editor's pure parts: a structured form for the common rules
// (conditions on fields, a verdict, a kind), its round trip to the rule
// document the agent stores, what a rule says in words, and the agent's
// errors split into the JSON pointer they name and what is wrong there.
// The grammar itself is the agent's to check (docs/rules.md).

import type { RuleDoc, RuleField } from '../api/plans';
import { withArticle } from './format';

export interface Condition {
  field: string;
  op: string;
  /** As typed: lists comma-separated, numbers and true/false as text. */
  value: string;
}

export interface RuleForm {
  id: string;
  name: string;
  enabled: boolean;
  /** all: every condition holds ($and); any: one does ($or). */
  match: 'all' | 'any';
  conditions: Condition[];
  verdict: string;
  kind: string;
  title: string;
  due: string;
  project: string;
  /** Kept as written: the form does not edit actions (the JSON does). */
  actions?: RuleDoc['then']['actions'];
}

export const VERDICT_LABEL: Record<string, string> = {
  show: 'Inbox',
  screen: 'Screened',
  spam: 'Spam',
  skip: 'Skip (to Screened)',
};

export const OP_LABEL: Record<string, string> = {
  equals: 'is',
  not_equals: 'is not',
  starts_with: 'starts with',
  ends_with: 'ends with',
  contains: 'contains',
  contains_word: 'contains the words',
  regex: 'matches the regex',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  in: 'is one of',
  not_in: 'is none of',
  exists: 'has a value',
};

const TEXT_OPS = ['equals', 'not_equals', 'starts_with', 'ends_with', 'contains', 'contains_word', 'regex', 'in', 'not_in', 'exists'];
const NUMBER_OPS = ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists'];
const BOOL_OPS = ['equals', 'not_equals', 'exists'];

/** The operators that fit a field's type, among those the agent has. */
export function opsFor(type: string | undefined, operators: readonly string[]): string[] {
  let ops: string[];
  if (type === 'number') ops = NUMBER_OPS;
  else if (type === 'bool') ops = BOOL_OPS;
  else if (type === 'string' || type === 'list') ops = TEXT_OPS;
  else ops = [...new Set([...TEXT_OPS, ...NUMBER_OPS])];
  return operators.length ? ops.filter((o) => operators.includes(o)) : ops;
}

export const emptyCondition = (fields: readonly RuleField[]): Condition => ({
  field: fields[0]?.name ?? '',
  op: fields[0]?.type === 'number' ? 'gt' : fields[0]?.type === 'bool' ? 'equals' : 'contains',
  value: '',
});

/** A new rule's form, with an id the scout does not use yet. */
export function newRuleForm(fields: readonly RuleField[], taken: readonly string[]): RuleForm {
  return {
    id: freeId(taken),
    name: '',
    enabled: true,
    match: 'all',
    conditions: [emptyCondition(fields)],
    verdict: 'show',
    kind: '',
    title: '',
    due: '',
    project: '',
  };
}

export function freeId(taken: readonly string[], base = 'rule'): string {
  for (let i = 1; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** One `{field: {op: value}}` as a condition; undefined when it says more
 * than the form can show (several operators, case_sensitive, a combinator). */
function condition(f: unknown): Condition | undefined {
  if (!isObj(f)) return undefined;
  const keys = Object.keys(f);
  if (keys.length !== 1 || keys[0]!.startsWith('$')) return undefined;
  const field = keys[0]!;
  const ops = f[field];
  if (!isObj(ops) || Object.keys(ops).length !== 1) return undefined;
  const op = Object.keys(ops)[0]!;
  const v = ops[op];
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(v) || !v.every(scalar)) return undefined;
    return { field, op, value: v.map(String).join(', ') };
  }
  if (!scalar(v)) return undefined;
  return { field, op, value: String(v) };
}

/** The form of a rule, or undefined when the rule is beyond the form (it
 * is then edited as JSON, and nothing of it is lost). */
export function formFromDoc(doc: RuleDoc): RuleForm | undefined {
  const when = doc.when;
  if (!isObj(when) || !isObj(doc.then)) return undefined;
  let match: 'all' | 'any' = 'all';
  let parts: unknown[];
  const keys = Object.keys(when);
  if (keys.length === 1 && (keys[0] === '$and' || keys[0] === '$or')) {
    match = keys[0] === '$or' ? 'any' : 'all';
    const list = when[keys[0]!];
    if (!Array.isArray(list)) return undefined;
    parts = list;
  } else {
    // Several fields in one object must all hold.
    parts = keys.map((k) => ({ [k]: when[k] }));
  }
  const conditions: Condition[] = [];
  for (const p of parts) {
    const c = condition(p);
    if (!c) return undefined;
    conditions.push(c);
  }
  if (conditions.length === 0) return undefined;
  const t = doc.then;
  const known = new Set(['verdict', 'kind', 'title', 'due', 'project', 'actions']);
  if (Object.keys(t).some((k) => !known.has(k))) return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const [kind, title, due, project] = [text(t.kind ?? ''), text(t.title ?? ''), text(t.due ?? ''), text(t.project ?? '')];
  if (kind === undefined || title === undefined || due === undefined || project === undefined) return undefined;
  const extra = Object.keys(doc).filter((k) => !['id', 'name', 'enabled', 'when', 'then'].includes(k));
  if (extra.length > 0) return undefined;
  return {
    id: doc.id ?? '',
    name: doc.name ?? '',
    enabled: doc.enabled ?? true,
    match,
    conditions,
    verdict: String(t.verdict ?? ''),
    kind,
    title,
    due,
    project,
    actions: t.actions,
  };
}

/** A condition's value as JSON for its field's type and operator; a
 * string saying what is wrong when it cannot be. */
function operand(c: Condition, type: string | undefined): unknown {
  const v = c.value.trim();
  const num = (s: string) => {
    const n = Number(s);
    if (s === '' || !Number.isFinite(n)) throw new Error(`“${s}” is not a number`);
    return n;
  };
  switch (c.op) {
    case 'exists':
      if (v !== 'true' && v !== 'false') throw new Error('say true (has a value) or false (has none)');
      return v === 'true';
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return num(v);
    case 'in':
    case 'not_in': {
      const items = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (items.length === 0) throw new Error('give one or more values, separated by commas');
      return type === 'number' ? items.map(num) : items;
    }
  }
  if (type === 'number') return num(v);
  if (type === 'bool') {
    if (v !== 'true' && v !== 'false') throw new Error('say true or false');
    return v === 'true';
  }
  if (v === '') throw new Error('give a value');
  return c.value;
}

export type Built = { doc: RuleDoc; error?: undefined } | { doc?: undefined; error: string };

/** The rule document a form says. Problems the window can see (an empty
 * value, a number that is not one) come back in words; the grammar's own
 * are the agent's to say. */
export function docFromForm(f: RuleForm, fields: readonly RuleField[]): Built {
  if (!f.id.trim()) return { error: 'Give the rule an id: letters, digits, - and _.' };
  if (f.conditions.length === 0) return { error: 'Add a condition: a rule needs one to match anything.' };
  const parts: Record<string, unknown>[] = [];
  for (const [i, c] of f.conditions.entries()) {
    const type = fields.find((x) => x.name === c.field)?.type;
    try {
      parts.push({ [c.field]: { [c.op]: operand(c, type) } });
    } catch (e) {
      return { error: `Condition ${i + 1} (${c.field} ${OP_LABEL[c.op] ?? c.op}): ${(e as Error).message}.` };
    }
  }
  const when = parts.length === 1 ? parts[0]! : { [f.match === 'any' ? '$or' : '$and']: parts };
  const then: RuleDoc['then'] = { verdict: f.verdict };
  if (f.kind) then.kind = f.kind;
  if (f.title.trim()) then.title = f.title;
  if (f.due.trim()) then.due = f.due.trim();
  if (f.project.trim()) then.project = f.project.trim();
  if (f.actions?.length) then.actions = f.actions;
  const doc: RuleDoc = {
    id: f.id.trim(),
    ...(f.name.trim() ? { name: f.name.trim() } : {}),
    ...(f.enabled ? {} : { enabled: false }),
    when,
    then,
  };
  return { doc };
}

/** JSON typed into the editor, as a rule document or what is wrong with it. */
export function parseRuleText(text: string): { doc: RuleDoc; error?: undefined } | { doc?: undefined; error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const at = /position (\d+)/.exec(msg);
    if (at) {
      const pos = Number(at[1]);
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const col = pos - before.lastIndexOf('\n');
      return { error: `Not valid JSON at line ${line}, column ${col}: ${msg.replace(/ in JSON at position \d+.*$/, '')}.` };
    }
    return { error: `Not valid JSON: ${msg}.` };
  }
  if (!isObj(v)) return { error: 'A rule is a JSON object: {"id": …, "when": {…}, "then": {…}}.' };
  return { doc: v as unknown as RuleDoc };
}

export interface RuleProblem {
  /** The JSON pointer the agent names (/when/$and/1/subject/regex). */
  path?: string;
  message: string;
}

/** Splits the agent's refusal, `rule "x" at /when/…: the regex does not
 * compile`, into where and what. */
export function ruleProblem(message: string): RuleProblem {
  const m = /^rule "(?:[^"\\]|\\.)*"(?: at (\/\S*?))?: ([\s\S]*)$/i.exec(message.trim());
  if (!m) return { message };
  const what = m[2]!.trim();
  return { path: m[1], message: what[0] ? what[0].toUpperCase() + what.slice(1) : what };
}

/** The part of the form a JSON pointer names: "condition 2", "title". */
export function pathTarget(path: string | undefined, f: RuleForm | undefined): string | undefined {
  if (!path || !f) return undefined;
  const seg = path.split('/').slice(1);
  if (seg[0] === 'then' && seg[1]) return seg[1] === 'actions' ? 'actions' : seg[1];
  if (seg[0] === 'id' || seg[0] === 'name') return seg[0];
  if (seg[0] !== 'when') return undefined;
  if ((seg[1] === '$and' || seg[1] === '$or') && seg[2] !== undefined) {
    const i = Number(seg[2]);
    return Number.isInteger(i) ? `condition-${i}` : undefined;
  }
  const i = f.conditions.findIndex((c) => c.field === seg[1]);
  return i >= 0 ? `condition-${i}` : undefined;
}

const quoteVal = (v: unknown): string =>
  Array.isArray(v) ? v.map(quoteVal).join(', ') : typeof v === 'string' ? `“${v}”` : String(v);

/** A filter in words, kept short: "subject contains “invoice” and …". */
export function describeWhen(when: unknown, depth = 0): string {
  if (!isObj(when) || depth > 4) return '…';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(when)) {
    if (k === '$and' || k === '$or') {
      const list = Array.isArray(v) ? v.map((x) => describeWhen(x, depth + 1)) : [];
      const joined = list.join(k === '$and' ? ' and ' : ' or ');
      parts.push(list.length > 1 && depth > 0 ? `(${joined})` : joined);
    } else if (k === '$not') {
      parts.push(`not (${describeWhen(v, depth + 1)})`);
    } else if (isObj(v)) {
      for (const [op, arg] of Object.entries(v)) {
        if (op === 'case_sensitive') continue;
        if (op === 'exists') parts.push(arg ? `${k} has a value` : `${k} is empty`);
        else parts.push(`${k} ${OP_LABEL[op] ?? op} ${quoteVal(arg)}`);
      }
    }
  }
  return parts.join(' and ');
}

/** What a rule does, in words: "Inbox, as a task, due +3d, 1 action". */
export function describeThen(then: RuleDoc['then'] | undefined): string {
  if (!then) return '';
  const out = [VERDICT_LABEL[then.verdict] ?? then.verdict];
  if (then.kind) out.push(`as ${withArticle(then.kind)}`);
  if (then.title) out.push(`titled “${then.title}”`);
  if (then.project) out.push(`in ${then.project}`);
  if (then.due) out.push(`due ${then.due}`);
  const n = then.actions?.length ?? 0;
  if (n) out.push(n === 1 ? `and ${then.actions![0]!.action}` : `and ${n} actions`);
  return out.join(', ');
}

/** The order after moving the rule at index i by delta (−1 up, +1 down);
 * the same order when it cannot move. */
export function moved(ids: readonly string[], i: number, delta: number): string[] {
  const j = i + delta;
  const out = [...ids];
  if (i < 0 || i >= ids.length || j < 0 || j >= ids.length) return out;
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}
