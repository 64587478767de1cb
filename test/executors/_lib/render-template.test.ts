import test from 'ava';
import { placeholdersOf, renderHeaderValue, renderTemplate, templateVariables } from '../../../executors/_lib/render-template.ts';
import { TemplateError } from '../../../executors/_lib/template-error.ts';

const HOSTILE = 'a"b\\c\nd\u2028e\u0001f"}, "admin": true, "x": "';

test('json: a value inside a string literal is escaped content and cannot break out', (t) => {
  const out = renderTemplate('{"msg": "alert: {{ text }}!", "n": 1}', { text: HOSTILE }, 'json');
  const parsed = JSON.parse(out) as Record<string, unknown>;
  t.deepEqual(Object.keys(parsed), ['msg', 'n']);
  t.is(parsed.msg, `alert: ${HOSTILE}!`);
  t.true(out.includes('\\u2028'));
});

test('json: a placeholder standing alone becomes the JSON encoding of the value', (t) => {
  const out = renderTemplate('{"n": {{count}}, "on": {{ flag }}, "hosts": {{ hosts }}, "s": {{ text }}, "z": {{ nothing }}}', { count: 3, flag: false, hosts: ['a', 'b'], text: HOSTILE, nothing: null }, 'json');
  t.deepEqual(JSON.parse(out), { n: 3, on: false, hosts: ['a', 'b'], s: HOSTILE, z: null });
});

test('json: non-string values inside a string literal are inserted as their JSON text', (t) => {
  t.deepEqual(JSON.parse(renderTemplate('{"m": "{{n}} hosts: {{ hosts }}"}', { n: 2, hosts: ['a"'] }, 'json')), { m: '2 hosts: ["a\\""]' });
});

test('json: escaped quotes in the template keep the string state right', (t) => {
  t.deepEqual(JSON.parse(renderTemplate('{"a": "say \\"{{ w }}\\"", "b": {{ n }}}', { w: 'hi"', n: 1 }, 'json')), { a: 'say "hi""', b: 1 });
});

test('a missing variable is an error naming it, never an empty string', (t) => {
  for (const context of ['json', 'text', 'url'] as const) {
    const err = t.throws(() => renderTemplate('{"a": "https://x.example/{{ ghost }}"}', { other: 1 }, context), { instanceOf: TemplateError });
    t.is(err!.code, 'template_variable_missing');
    t.is(err!.message, 'template_variable_missing: ghost');
  }
  // Inherited names are not variables.
  t.throws(() => renderTemplate('{{ constructor }}', {}, 'text'), { message: 'template_variable_missing: constructor' });
  t.throws(() => renderTemplate('{{ a b }}', { a: 1 }, 'text'), { message: 'template_variable_missing: a b' });
});

test('json: a rendering that is not JSON fails invalid_template without quoting the text', (t) => {
  const err = t.throws(() => renderTemplate('{"token": {{ t }}', { t: 'sekrit-value' }, 'json'), { instanceOf: TemplateError });
  t.is(err!.code, 'invalid_template');
  t.false(err!.message.includes('sekrit'));
});

test('text: values as text; header values refuse CR, LF and NUL', (t) => {
  t.is(renderTemplate('{{ n }} of {{ hosts }} for {{ who }}', { n: 2, hosts: ['a', 'b'], who: 'ops' }, 'text'), '2 of ["a","b"] for ops');
  t.is(renderHeaderValue('authorization', 'Bearer {{ token }}', { token: 'abc' }), 'Bearer abc');
  for (const bad of ['x\r\nX-Evil: 1', 'x\ny', 'x\0y']) {
    const err = t.throws(() => renderHeaderValue('authorization', 'Bearer {{ token }}', { token: bad }), { instanceOf: TemplateError });
    t.is(err!.code, 'invalid_header_value');
    t.false(err!.message.includes(bad));
  }
});

test('url: each value is one encoded component; a URL that is one placeholder is taken whole', (t) => {
  t.is(renderTemplate('https://x.example/block/{{ ip }}?q={{ q }}', { ip: '1.2.3.4/../admin', q: 'a&b=c' }, 'url'), 'https://x.example/block/1.2.3.4%2F..%2Fadmin?q=a%26b%3Dc');
  t.is(renderTemplate('{{ hook }}', { hook: 'https://hooks.slack.example/T/B/xyz' }, 'url'), 'https://hooks.slack.example/T/B/xyz');
  t.is(renderTemplate('https://{{ sub }}.example.com/x', { sub: 'eu' }, 'url'), 'https://eu.example.com/x');
  for (const [template, vars] of [['https://{{ host }}/x', { host: 'evil.example/path' }], ['{{ hook }}', { hook: 'javascript:alert(1)' }], ['{{ hook }}', { hook: 'https://a.example/\nx' }], ['{{ host }}/x', { host: 'a.example' }]] as const) {
    t.throws(() => renderTemplate(template, vars, 'url'), { instanceOf: TemplateError, message: /invalid_template/ });
  }
});

test('placeholdersOf lists distinct names in order, malformed ones included', (t) => {
  t.deepEqual(placeholdersOf('{{a}} {{ b }} {{a}} {{  c d }} {{}} { {x} }'), ['a', 'b', 'c d', '']);
});

test('template variables: the parameters, plus target and asset_id of the asset; a parameter wins', (t) => {
  const asset = { id: 'ast_1', type: 'domain' as const, value: 'example.com', name: 'site' };
  t.deepEqual(templateVariables({ params: { a: 1 }, asset, target: 'ast_1' }), { target: 'example.com', asset_id: 'ast_1', a: 1 });
  t.deepEqual(templateVariables({ params: { target: 'mine' }, asset, target: 'ast_1' }), { target: 'mine', asset_id: 'ast_1' });
  t.deepEqual(templateVariables({ params: {}, asset: null, target: null }), {});
});
