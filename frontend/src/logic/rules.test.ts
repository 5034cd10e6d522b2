import { describe, expect, it } from 'vitest';
import type { RuleDoc, RuleField } from '../api/plans';
import {
  describeThen,
  describeWhen,
  docFromForm,
  formFromDoc,
  freeId,
  moved,
  newRuleForm,
  opsFor,
  parseRuleText,
  pathTarget,
  ruleProblem,
} from './rules';

const fields: RuleField[] = [
  { name: 'from', type: 'string', doc: '' },
  { name: 'to', type: 'list', doc: '' },
  { name: 'size', type: 'number', doc: '' },
  { name: 'has_attachment', type: 'bool', doc: '' },
];
const ops = ['equals', 'not_equals', 'starts_with', 'ends_with', 'contains', 'contains_word', 'regex', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists'];

describe('the rule form', () => {
  it('round-trips a rule of several conditions', () => {
    const doc: RuleDoc = {
      id: 'invoices',
      name: 'Invoices',
      when: { $or: [{ from: { in: ['a@x.example', 'b@x.example'] } }, { size: { gt: 1000 } }, { has_attachment: { equals: true } }] },
      then: { verdict: 'show', kind: 'task', title: 'Pay {{.from}}', due: '+3d', actions: [{ action: 'gmail.label', params: { label: 'Bills' } }] },
    };
    const f = formFromDoc(doc)!;
    expect(f.match).toBe('any');
    expect(f.conditions).toEqual([
      { field: 'from', op: 'in', value: 'a@x.example, b@x.example' },
      { field: 'size', op: 'gt', value: '1000' },
      { field: 'has_attachment', op: 'equals', value: 'true' },
    ]);
    expect(docFromForm(f, fields).doc).toEqual(doc);
  });

  it('reads several fields of one object as "all of"', () => {
    const f = formFromDoc({ id: 'x', when: { from: { equals: 'a' }, size: { lt: 5 } }, then: { verdict: 'spam' } })!;
    expect(f.match).toBe('all');
    expect(docFromForm(f, fields).doc!.when).toEqual({ $and: [{ from: { equals: 'a' } }, { size: { lt: 5 } }] });
  });

  it('leaves to JSON what it cannot show, so nothing is lost', () => {
    const beyond: RuleDoc[] = [
      { id: 'a', when: { $not: { from: { equals: 'x' } } }, then: { verdict: 'show' } },
      { id: 'b', when: { subject: { contains: 'X', case_sensitive: true } }, then: { verdict: 'show' } },
      { id: 'c', when: { $and: [{ $or: [{ from: { equals: 'x' } }] }] }, then: { verdict: 'show' } },
      { id: 'd', when: { from: { equals: 'x' } }, then: { verdict: 'show', surprise: 1 } as never },
    ];
    for (const d of beyond) expect(formFromDoc(d), d.id).toBeUndefined();
  });

  it('types values by field and operator, and says what is wrong', () => {
    const f = newRuleForm(fields, ['rule-1']);
    expect(f.id).toBe('rule-2');
    const with_ = (field: string, op: string, value: string) =>
      docFromForm({ ...f, conditions: [{ field, op, value }] }, fields);
    expect(with_('size', 'in', '1, 2,3').doc!.when).toEqual({ size: { in: [1, 2, 3] } });
    expect(with_('from', 'exists', 'false').doc!.when).toEqual({ from: { exists: false } });
    expect(with_('has_attachment', 'equals', 'false').doc!.when).toEqual({ has_attachment: { equals: false } });
    expect(with_('size', 'gt', 'big').error).toBe('Condition 1 (size is more than): “big” is not a number.');
    expect(with_('from', 'contains', '  ').error).toMatch(/give a value/);
    expect(with_('from', 'in', ' , ').error).toMatch(/one or more values/);
    expect(docFromForm({ ...f, id: ' ' }, fields).error).toMatch(/id/);
    expect(docFromForm({ ...f, enabled: false, conditions: [{ field: 'from', op: 'ends_with', value: '.example' }] }, fields).doc).toEqual({
      id: 'rule-2',
      enabled: false,
      when: { from: { ends_with: '.example' } },
      then: { verdict: 'show' },
    });
  });

  it('offers the operators that fit a field', () => {
    expect(opsFor('bool', ops)).toEqual(['equals', 'not_equals', 'exists']);
    expect(opsFor('number', ops)).toContain('gte');
    expect(opsFor('string', ops)).not.toContain('gt');
    expect(opsFor('string', ['equals'])).toEqual(['equals']);
  });

  it('finds free ids', () => {
    expect(freeId([])).toBe('rule-1');
    expect(freeId(['rule-1', 'rule-2'])).toBe('rule-3');
  });
});

describe('errors', () => {
  it('split the agent’s refusal into the path and the problem', () => {
    // As the window shows it: the API message made a sentence.
    expect(ruleProblem('Rule "x" at /when/$and/1/subject/regex: the regex does not compile (RE2 syntax): missing ).')).toEqual({
      path: '/when/$and/1/subject/regex',
      message: 'The regex does not compile (RE2 syntax): missing ).',
    });
    expect(ruleProblem('rule "x": the id is taken')).toEqual({ path: undefined, message: 'The id is taken' });
    expect(ruleProblem('Something else.')).toEqual({ message: 'Something else.' });
  });

  it('point at the part of the form a path names', () => {
    const f = formFromDoc({ id: 'x', when: { from: { equals: 'a' }, size: { lt: 5 } }, then: { verdict: 'spam' } })!;
    expect(pathTarget('/when/$and/1/size/lt', f)).toBe('condition-1');
    expect(pathTarget('/when/size/lt', f)).toBe('condition-1');
    expect(pathTarget('/then/title', f)).toBe('title');
    expect(pathTarget('/then/actions/0/params', f)).toBe('actions');
    expect(pathTarget(undefined, f)).toBeUndefined();
  });

  it('say where JSON is broken', () => {
    expect(parseRuleText('{"id": "x",\n "when": }').error).toMatch(/^Not valid JSON/);
    expect(parseRuleText('[1]').error).toMatch(/JSON object/);
    expect(parseRuleText('{"id":"x","when":{},"then":{"verdict":"show"}}').doc!.id).toBe('x');
  });
});

describe('a rule in words', () => {
  it('says the filter and the outcome', () => {
    expect(
      describeWhen({ $and: [{ domain: { ends_with: 'acme.example' } }, { $or: [{ subject: { contains_word: 'invoice' } }, { list_id: { exists: true } }] }] }),
    ).toBe('domain ends with “acme.example” and (subject contains the words “invoice” or list_id has a value)');
    expect(describeWhen({ from: { in: ['a', 'b'] } })).toBe('from is one of “a”, “b”');
    expect(describeThen({ verdict: 'show', kind: 'task', due: '+1d', actions: [{ action: 'gmail.label' }] })).toBe(
      'Inbox, as a task, due +1d, and gmail.label',
    );
    expect(describeThen({ verdict: 'show', kind: 'event' })).toBe('Inbox, as an event');
  });

  it('moves rules within bounds', () => {
    expect(moved(['a', 'b', 'c'], 1, -1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
  });
});
