import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FlagValueError,
  formatDuration,
  parseBool,
  parseCidrs,
  parseDuration,
  parseFloatValue,
  parseInteger,
  parseIp,
  parseLevel,
  parseMapStringString,
  parseModuleSpec,
  parseNamedCertKey,
  parsePortRange,
  parseSeverity,
  parseStringSlice,
  parseTraceLocation,
  INT32,
  UINT,
} from '../../src/cli/flag-types.js';

/** Asserts that fn throws a FlagValueError whose message names the flag and shows an example (e.g.). */
function rejects(fn: () => unknown, flag: string, example = true): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, FlagValueError);
    const msg = (e as Error).message;
    assert.ok(msg.includes(flag), `message names ${flag}: ${msg}`);
    if (example) assert.ok(/e\.g\.|such as|expected/.test(msg), `message shows what is expected: ${msg}`);
    return;
  }
  assert.unreachable(`expected an error for ${flag}`);
}

test('duration accepts Go forms and gives milliseconds', () => {
  assert.is(parseDuration('--d', '10s'), 10_000);
  assert.is(parseDuration('--d', '1m0s'), 60_000);
  assert.is(parseDuration('--d', '8760h0m0s'), 8760 * 3_600_000);
  assert.is(parseDuration('--d', '1.5h'), 5_400_000);
  assert.is(parseDuration('--d', '300ms'), 300);
  assert.is(parseDuration('--d', '2h45m'), 9_900_000);
  assert.is(parseDuration('--d', '0'), 0);
  assert.is(parseDuration('--d', '-5s'), -5000);
  assert.is(parseDuration('--d', '1500us'), 1.5);
});

test('duration rejects malformed values naming the flag', () => {
  for (const bad of ['', 'abc', '10', '5 s', '1x', 'h', '1h-5m']) rejects(() => parseDuration('--request-timeout', bad), '--request-timeout');
});

test('formatDuration prints the Go style', () => {
  assert.is(formatDuration(60_000), '1m0s');
  assert.is(formatDuration(8760 * 3_600_000), '8760h0m0s');
  assert.is(formatDuration(5000), '5s');
  assert.is(formatDuration(300), '300ms');
  assert.is(formatDuration(0), '0s');
  assert.is(formatDuration(5_400_000), '1h30m0s');
  assert.is(formatDuration(1500), '1.5s');
});

test('bool accepts Go spellings and rejects others', () => {
  for (const t of ['true', '1', 't', 'T', 'TRUE', 'True']) assert.is(parseBool('--b', t), true);
  for (const f of ['false', '0', 'f', 'F', 'FALSE', 'False']) assert.is(parseBool('--b', f), false);
  rejects(() => parseBool('--profiling', 'yes'), '--profiling');
});

test('integers are range-checked by type', () => {
  assert.is(parseInteger('--n', '42'), 42);
  assert.is(parseInteger('--n', '-3', INT32), -3);
  rejects(() => parseInteger('--n', '2147483648', INT32), '--n');
  rejects(() => parseInteger('--log-file-max-size', '-1', UINT), '--log-file-max-size');
  rejects(() => parseInteger('--n', '1.5'), '--n');
  rejects(() => parseInteger('--n', 'ten'), '--n');
});

test('floats parse and float32 is range-checked', () => {
  assert.is(parseFloatValue('--f', '0.02'), 0.02);
  assert.is(parseFloatValue('--f', '1e3', 'float32'), 1000);
  rejects(() => parseFloatValue('--f', '1e39', 'float32'), '--f');
  rejects(() => parseFloatValue('--goaway-chance', 'half'), '--goaway-chance');
});

test('stringSlice splits on commas and drops blanks', () => {
  assert.equal(parseStringSlice('a, b,,c'), ['a', 'b', 'c']);
  assert.equal(parseStringSlice(''), []);
});

test('mapStringString parses a=b,c=d and rejects items without =', () => {
  assert.equal(parseMapStringString('--m', 'a=b,c=d=e'), { a: 'b', c: 'd=e' });
  rejects(() => parseMapStringString('--oidc-required-claim', 'a=b,c'), '--oidc-required-claim');
});

test('portRange accepts a-b, a+n and a single port', () => {
  assert.equal(parsePortRange('--p', '30000-32767'), { base: 30000, size: 2768 });
  assert.equal(parsePortRange('--p', '30000+767'), { base: 30000, size: 768 });
  assert.equal(parsePortRange('--p', '8080'), { base: 8080, size: 1 });
  for (const bad of ['32767-30000', '0-10', '70000', 'a-b', '65535+1', '']) rejects(() => parsePortRange('--service-node-port-range', bad), '--service-node-port-range');
});

test('cidrs and ip accept v4 and v6 and reject malformed values', () => {
  assert.equal(parseCidrs('--c', '130.211.0.0/22,fd00::/64'), ['130.211.0.0/22', 'fd00::/64']);
  rejects(() => parseCidrs('--cloud-provider-cloudy-l7lb-src-cidrs', '10.0.0.0/33'), '--cloud-provider-cloudy-l7lb-src-cidrs');
  rejects(() => parseCidrs('--c', '10.0.0.0'), '--c');
  assert.is(parseIp('--bind-address', '::1'), '::1');
  assert.is(parseIp('--bind-address', '10.1.2.3'), '10.1.2.3');
  rejects(() => parseIp('--bind-address', '10.1.2'), '--bind-address');
  rejects(() => parseIp('--bind-address', 'localhost'), '--bind-address');
});

test('namedCertKey reads cert,key and optional name patterns', () => {
  assert.equal(parseNamedCertKey('--n', 'cert.crt,key.key'), { certFile: 'cert.crt', keyFile: 'key.key', names: [] });
  assert.equal(parseNamedCertKey('--n', 'cert.crt,key.key:*.foo.com,foo.com'), {
    certFile: 'cert.crt',
    keyFile: 'key.key',
    names: ['*.foo.com', 'foo.com'],
  });
  for (const bad of ['cert.crt', 'cert.crt,', 'a,b,c', 'cert.crt,key.key:']) rejects(() => parseNamedCertKey('--tls-sni-cert-key', bad), '--tls-sni-cert-key');
});

test('traceLocation is file:N and :0 means off', () => {
  assert.equal(parseTraceLocation('--t', 'server.ts:42'), { file: 'server.ts', line: 42 });
  assert.is(parseTraceLocation('--t', ':0'), undefined);
  rejects(() => parseTraceLocation('--log-backtrace-at', 'server.ts'), '--log-backtrace-at');
  rejects(() => parseTraceLocation('--log-backtrace-at', 'server.ts:x'), '--log-backtrace-at');
});

test('moduleSpec is pattern=N list', () => {
  assert.equal(parseModuleSpec('--vmodule', 'storage*=4,watch=6'), [
    { pattern: 'storage*', level: 4 },
    { pattern: 'watch', level: 6 },
  ]);
  rejects(() => parseModuleSpec('--vmodule', 'storage=high'), '--vmodule');
});

test('severity accepts names and 0-3', () => {
  assert.is(parseSeverity('--s', 'warning'), 'WARNING');
  assert.is(parseSeverity('--s', '2'), 'ERROR');
  assert.is(parseSeverity('--s', 'FATAL'), 'FATAL');
  rejects(() => parseSeverity('--stderrthreshold', '4'), '--stderrthreshold');
  rejects(() => parseSeverity('--stderrthreshold', 'DEBUG'), '--stderrthreshold');
});

test('level is a non-negative integer', () => {
  assert.is(parseLevel('--v', '4'), 4);
  rejects(() => parseLevel('--v', '-1'), '--v');
});

test.run();
