// Warning headers as k8s.io/apiserver writes them (src/apiserver/warnings.ts): the text quoted,
// field names quoted as Go's %q, deduplicated, cut short past 4 KiB in total, and the value given
// to Node as the UTF-8 bytes spelled in latin1 so that HTTP/1.1 and HTTP/2 both send it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateHeaderValue } from 'node:http';
import { addWarning, goQuote, unknownFieldText, wireHeaderValue } from '../../src/apiserver/warnings.js';
import type { Response } from '../../src/apiserver/http.js';

/** A response that records setHeader and validates values as Node's HTTP/1.1 does. */
function fakeResponse(): Response & { values(): string[] } {
  let warning: string[] = [];
  return {
    statusCode: 200,
    headersSent: false,
    writableEnded: false,
    setHeader(name: string, value: string | number | readonly string[]) {
      assert.is(name, 'warning');
      warning = [...(value as string[])];
      for (const v of warning) validateHeaderValue(name, v);
    },
    writeHead: () => undefined,
    write: () => true,
    end: () => undefined,
    on: () => undefined,
    values: () => warning.map((v) => Buffer.from(v, 'latin1').toString('utf8')),
  };
}

test('goQuote is strconv.Quote: printable Unicode kept, quotes and backslashes escaped, the rest as escapes', () => {
  assert.is(goQuote('spec.x'), '"spec.x"');
  assert.is(goQuote('😀€é'), '"😀€é"');
  assert.is(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.is(goQuote('a\u0001b\n\t'), '"a\\x01b\\n\\t"');
  assert.is(goQuote('\ufeffkey'), '"\\ufeffkey"');
  assert.is(goQuote('\u{e0001}'), '"\\U000e0001"');
  assert.is(goQuote('\ud800x'), '"\ufffdx"', 'a lone surrogate is U+FFFD, as Go decodes it');
  assert.is(unknownFieldText('😀'), 'unknown field "😀"');
});

test('addWarning: 299 - quoted text, sendable by Node, the same text once', () => {
  const res = fakeResponse();
  addWarning(res, unknownFieldText('😀'));
  addWarning(res, unknownFieldText('€'));
  addWarning(res, unknownFieldText('😀'));
  assert.equal(res.values(), ['299 - "unknown field \\"😀\\""', '299 - "unknown field \\"€\\""']);
});

test('past 4 KiB of warnings every warning is cut to 256 characters, earlier ones included, and once 4 KiB of cut ones are written the rest are dropped', () => {
  const res = fakeResponse();
  for (let i = 0; i < 20; i++) addWarning(res, `${i} ${'x'.repeat(400)}`);
  const values = res.values();
  // About 9 whole ones fit in 4 KiB; cut to ~265 bytes, 16 are written before the total is reached again.
  assert.is(values.length, 16);
  for (const v of values) assert.is([...v].length, '299 - ""'.length + 256);
  assert.ok(values[0]!.startsWith('299 - "0 xxx'));
});

test('wireHeaderValue: ASCII as it is; anything else as its UTF-8 bytes; control characters as spaces', () => {
  assert.is(wireHeaderValue('plain text'), 'plain text');
  assert.is(Buffer.from(wireHeaderValue('é😀'), 'latin1').toString('utf8'), 'é😀');
  assert.is(wireHeaderValue('a\nb\u0000c'), 'a b c');
  for (const v of ['é😀', 'a\nb', '\u0000', '\ufeff']) validateHeaderValue('x', wireHeaderValue(v));
});

test.run();
