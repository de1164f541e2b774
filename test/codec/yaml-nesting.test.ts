// YAML bodies nested past the bound are refused by a linear scan before the (recursive) parser runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeBody, MAX_YAML_NESTING, parseYamlText, yamlNestingDepth } from '../../src/codec/body.js';
import { StatusError } from '../../src/api/status.js';

test('the scan counts flow brackets, block indentation and sequence dashes, not quoted text or comments', () => {
  assert.is(yamlNestingDepth('a: 1\nb: 2\n'), 1);
  assert.is(yamlNestingDepth('a:\n  b:\n    c: 1\n'), 3);
  assert.is(yamlNestingDepth('a: [[1], {b: [2]}]\n'), 4);
  assert.is(yamlNestingDepth('- - - x\n'), 4);
  assert.is(yamlNestingDepth('a: "[[[[[[" # [[[[\nb: \'{{{{\'\n'), 1);
  assert.ok(yamlNestingDepth('[]'.padStart(2, '[')) >= 1);
});

test('deep flow and deep block YAML are a 400 naming the bound, fast, not a stack overflow', () => {
  for (const text of ['a: ' + '['.repeat(20_000) + ']'.repeat(20_000), Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n']) {
    try {
      decodeBody('application/yaml', Buffer.from(text), ['application/yaml']);
      assert.unreachable('expected a 400');
    } catch (e) {
      assert.instance(e, StatusError);
      assert.is((e as StatusError).code, 400);
      assert.match((e as StatusError).message, new RegExp(`the request body is not valid YAML: it nests \\d+ levels deep, more than the ${MAX_YAML_NESTING} allowed`));
    }
  }
});

test('ordinary YAML still parses', () => {
  assert.equal(parseYamlText('metadata:\n  name: x\n  labels: {a: "b"}\ndata:\n  - [1, 2]\n'), { metadata: { name: 'x', labels: { a: 'b' } }, data: [[1, 2]] });
});

test.run();
