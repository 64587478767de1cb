import test from 'ava';
import {
  placeholdersIn,
  renderParameters,
  staticPlaceholderProblems,
  type RunContext,
  type StaticPlaceholderOptions,
} from '../../../../core/playbooks/language/templates.ts';

test('placeholdersIn finds every placeholder in every string leaf, with or without whitespace', (t) => {
  const value = {
    url: 'https://x/{{asset.name}}/{{ parameters.path }}',
    body: { text: '{{   finding.title\t}}', list: ['{{ steps.s1.output.id }}', 3, null, '{{asset.name}}'] },
    '{{ not.a.key }}': 'plain',
    n: 5,
  };
  t.deepEqual(placeholdersIn(value), ['asset.name', 'parameters.path', 'finding.title', 'steps.s1.output.id']);
  t.deepEqual(placeholdersIn('{{ event.data.severity }}'), ['event.data.severity']);
  t.deepEqual(placeholdersIn({ a: 'no placeholders {here}', b: '{{ }}', c: '{{ a b }}' }), [], 'malformed ones are not placeholders');
});

const opts = (over: Partial<StaticPlaceholderOptions> = {}): StaticPlaceholderOptions => ({
  stepIds: ['s1', 's2', 's3', 'other'],
  earlierStepIds: (id) => ({ s1: [], s2: ['s1'], s3: ['s1', 's2'], other: ['s1'] })[id] ?? [],
  triggerEvent: 'finding.new',
  parameterNames: ['ip', 'reason'],
  stepId: 's3',
  ...over,
});

test('static problems: none for placeholders the engine can fill', (t) => {
  const value = {
    a: '{{ finding.title }} on {{ asset.name }}',
    b: '{{ event.data.cvss }}',
    c: ['{{ event.kind }}', '{{ parameters.ip }}', '{{ steps.s1.output.id }}', '{{ steps.s2.status }}'],
  };
  t.deepEqual(staticPlaceholderProblems(value, opts()), []);
});

test('static problems: each kind names the placeholder, where it is and why', (t) => {
  const check = (value: unknown, o: Partial<StaticPlaceholderOptions> = {}): string[] => staticPlaceholderProblems(value, opts(o));
  t.deepEqual(check({ x: '{{ foo.bar }}' }), [
    '"{{ foo.bar }}" in x: the path starts with the unknown root "foo" (a path starts with event, finding, asset, parameters, steps)',
  ]);
  t.deepEqual(check({ body: { t: 'Alert: {{ finding.title }}' } }, { triggerEvent: 'scan.completed' }), [
    '"{{ finding.title }}" in body.t: there is no finding: the trigger event "scan.completed" is not a finding event (finding.new, finding.status_changed)',
  ]);
  t.deepEqual(check(['{{ event.data.x }}'], { triggerEvent: 'manual' }), ['"{{ event.data.x }}" in [0]: there is no event: the playbook is only run by hand (trigger "manual")']);
  t.deepEqual(check('{{ parameters.port }}'), [`"{{ parameters.port }}": the parameter "port" is not declared in the playbook's parameters`]);
  t.deepEqual(check('{{ parameters.port }}', { parameterNames: null }), [], 'a playbook that declares no parameters takes any name');
  t.regex(check('{{ parameters }}', { parameterNames: null })[0]!, /name one/);
  t.deepEqual(check({ y: '{{ steps.nope.output }}' }), ['"{{ steps.nope.output }}" in y: there is no step "nope"']);
  t.deepEqual(check({ y: '{{ steps.other.output }}' }), [
    '"{{ steps.other.output }}" in y: step "other" does not run before step "s3" on every path (it is on another branch, or after it)',
  ]);
  t.deepEqual(check({ y: '{{ steps.s3.output }}' }), ['"{{ steps.s3.output }}" in y: step "s3" cannot read its own output']);
  t.regex(check({ y: '{{ steps.s1.result }}' })[0]!, /a step has only "status" and "output"/);
  t.regex(check({ y: '{{ event.severity }}' })[0]!, /the event has only "kind" and "data"/);
  t.deepEqual(check({ y: '{{ steps.other.output }}' }, { stepId: undefined }), [], 'without the step, only existence is checked');
});

test('static problems: malformed placeholders are refused, not sent as text', (t) => {
  const problems = staticPlaceholderProblems({ a: 'x {{ }} y', b: '{{ a b }}', c: 'open {{ asset.name', d: '{{ {{ asset.name }}', e: '{{ a..b }}' }, opts());
  t.deepEqual(problems, [
    'malformed placeholder "{{ }}" in a: the placeholder is empty',
    'malformed placeholder "{{ a b }}" in b: is not a dotted path of letters, digits, "_" and "-" (e.g. {{ asset.name }})',
    'malformed placeholder "{{ asset.name" in c: a "{{" is never closed with "}}"',
    'malformed placeholder "{{ {{ asset.name }}" in d: placeholders do not nest',
    'malformed placeholder "{{ a..b }}" in e: is not a dotted path of letters, digits, "_" and "-" (e.g. {{ asset.name }})',
  ]);
});

const context: RunContext = {
  event: { kind: 'finding.new', data: { finding_id: 'fnd_1', title: 'Open port', severity: 'high', cvss: 7.5, asset: { id: 'ast_1', name: 'web-1', type: 'ip' }, scan_id: null } },
  finding: { finding_id: 'fnd_1', title: 'Open port', severity: 'high', cvss: 7.5, scan_id: null },
  asset: { id: 'ast_1', name: 'web-1', tags: ['prod', 'pci'] },
  parameters: { port: 22, force: true, note: 'He said "hi"\n}, "admin": true, {' },
  steps: { lookup: { status: 'completed', output: { ips: ['10.0.0.1', '10.0.0.2'], meta: { n: 2 } } } },
};

test('a string that is exactly one placeholder keeps the value and its type', (t) => {
  const { value, missing } = renderParameters(
    { port: '{{ parameters.port }}', force: '{{parameters.force}}', tags: '{{ asset.tags }}', out: '{{ steps.lookup.output }}', scan: '{{ finding.scan_id }}', cvss: '{{ event.data.cvss }}' },
    context,
  );
  t.deepEqual(missing, []);
  t.deepEqual(value, { port: 22, force: true, tags: ['prod', 'pci'], out: { ips: ['10.0.0.1', '10.0.0.2'], meta: { n: 2 } }, scan: null, cvss: 7.5 });
  (value as { tags: string[] }).tags.push('changed');
  t.deepEqual(context.asset!.tags, ['prod', 'pci'], 'the rendered value is a copy, not the context');
});

test('a placeholder inside longer text becomes text (JSON text for non-strings)', (t) => {
  const { value, missing } = renderParameters(
    { msg: '{{ finding.severity }}: {{finding.title}} on {{ asset.name }} (port {{ parameters.port }}, {{ asset.tags }}, {{ finding.scan_id }})', pad: ' {{ parameters.port }}' },
    context,
  );
  t.deepEqual(missing, []);
  t.deepEqual(value, { msg: 'high: Open port on web-1 (port 22, ["prod","pci"], null)', pad: ' 22' });
});

test('nested objects and arrays are rendered leaf by leaf; other values pass through', (t) => {
  const input = { a: [{ b: ['x-{{ steps.lookup.output.ips.1 }}', 1, false, null] }], c: { d: { e: '{{ event.kind }}' } }, n: 4 };
  t.deepEqual(renderParameters(input, context).value, { a: [{ b: ['x-10.0.0.2', 1, false, null] }], c: { d: { e: 'finding.new' } }, n: 4 });
  t.is(input.a[0]!.b[0], 'x-{{ steps.lookup.output.ips.1 }}', 'the input is not modified');
});

test('missing paths are reported and their placeholders left as written, never emptied', (t) => {
  const { value, missing } = renderParameters(
    { a: '{{ steps.later.output.id }}', b: 'id={{ event.data.nope }}&x={{ parameters.port }}', c: '{{ finding.title.length }}', d: ['{{ asset.tags.5 }}'] },
    context,
  );
  t.deepEqual(missing, ['steps.later.output.id', 'event.data.nope', 'finding.title.length', 'asset.tags.5']);
  t.deepEqual(value, { a: '{{ steps.later.output.id }}', b: 'id={{ event.data.nope }}&x=22', c: '{{ finding.title.length }}', d: ['{{ asset.tags.5 }}'] });
});

test('a root the run does not have is missing, even as a whole object', (t) => {
  const manual: RunContext = { event: null, finding: null, asset: null, parameters: {}, steps: {} };
  const { value, missing } = renderParameters({ a: '{{ finding }}', b: '{{ event.kind }}', c: 'on {{ asset.name }}', d: '{{ parameters }}' }, manual);
  t.deepEqual(missing, ['finding', 'event.kind', 'asset.name']);
  t.deepEqual((value as Record<string, unknown>).d, {});
});

test('hostile values stay data: quotes, braces and newlines cannot change the shape', (t) => {
  const { value } = renderParameters({ body: { text: 'Note: {{ parameters.note }}' }, whole: '{{ parameters.note }}', inner: '{{ steps.lookup.status }}' }, context);
  t.deepEqual(Object.keys(value as object), ['body', 'whole', 'inner']);
  t.deepEqual(Object.keys((value as { body: object }).body), ['text']);
  t.is((value as { body: { text: string } }).body.text, 'Note: He said "hi"\n}, "admin": true, {');
  t.is((value as { whole: string }).whole, context.parameters.note as string);
  const wire = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  t.false('admin' in wire);
  const injected = renderParameters({ q: '{{ parameters.sneaky }}' }, { ...context, parameters: { sneaky: '{{ parameters.port }}' } });
  t.is((injected.value as { q: string }).q, '{{ parameters.port }}', 'a value that looks like a placeholder is not rendered again');
});

test('an own __proto__ key in parameters stays a plain key', (t) => {
  const input = JSON.parse('{"__proto__": {"polluted": "{{ parameters.port }}"}}') as unknown;
  const { value } = renderParameters(input, context);
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { polluted: 22 });
});
