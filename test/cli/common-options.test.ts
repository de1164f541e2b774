import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CommanderError, type Command } from 'commander';
import { resolveCommonOptions, type Component } from '../../src/cli/common-options.js';
import { createDaemonProgram } from '../../src/cli/program.js';

function program(component: Component): { cmd: Command; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const cmd = createDaemonProgram({ component, description: 'test' });
  cmd.configureOutput({ writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) });
  return { cmd, out, err };
}

function parse(component: Component, args: string[]) {
  const p = program(component);
  p.cmd.parse(args, { from: 'user' });
  return resolveCommonOptions(p.cmd.opts(), component);
}

function parseError(component: Component, args: string[]): { error: CommanderError; stderr: string } {
  const p = program(component);
  try {
    p.cmd.parse(args, { from: 'user' });
  } catch (e) {
    assert.instance(e, CommanderError);
    return { error: e as CommanderError, stderr: p.err.join('') };
  }
  throw new Error(`no error for ${args.join(' ')}`);
}

test('defaults follow the spec', () => {
  const o = parse('apiserver', []);
  assert.is(o.profiling, true);
  assert.is(o.contentionProfiling, false);
  assert.is(o.http2MaxStreamsPerConnection, 0);
  assert.is(o.tls.certDir, '/var/run/svc');
  assert.is(o.securePort, 6443);
  assert.is(o.bindAddress, '0.0.0.0');
  assert.is(o.logging.logToStderr, true);
  assert.is(o.logging.alsoLogToStderr, false);
  assert.is(o.logging.logFileMaxSizeMB, 1800);
  assert.is(o.logging.flushFrequencyMs, 5000);
  assert.is(o.logging.stderrThreshold, 'ERROR');
  assert.is(o.logging.verbosity, 0);
  assert.is(o.logging.backtraceAt, undefined);
  assert.is(o.featureGates['ServerSideApply'], true);
});

test('per-component defaults differ where the spec says so', () => {
  const s = parse('scheduler', []);
  assert.is(s.tls.certDir, '');
  assert.is(s.contentionProfiling, true);
  assert.is(s.securePort, 10259);
  assert.is(parse('controller-manager', []).securePort, 10257);
  assert.is(parse('cloud-controller-manager', []).securePort, 10258);
  assert.is(parse('scheduler', ['--secure-port=0']).securePort, 0, '0 disables HTTPS outside the API server');
});

test('a bool flag accepts --flag, --flag=true and --flag=false', () => {
  assert.is(parse('apiserver', ['--profiling=false']).profiling, false);
  assert.is(parse('apiserver', ['--profiling=false', '--profiling']).profiling, true);
  assert.is(parse('apiserver', ['--logtostderr=false']).logging.logToStderr, false);
  assert.is(parse('apiserver', ['--alsologtostderr']).logging.alsoLogToStderr, true);
  assert.is(parse('apiserver', ['--skip-headers=true']).logging.skipHeaders, true);
});

test('logging flags are parsed into typed values', () => {
  const o = parse('apiserver', ['-v', '4', '--vmodule=storage*=6', '--log-flush-frequency=1m0s', '--stderrthreshold=WARNING', '--log-backtrace-at=server.ts:12', '--log-dir=/tmp/x']);
  assert.is(o.logging.verbosity, 4);
  assert.equal(o.logging.vmodule, [{ pattern: 'storage*', level: 6 }]);
  assert.is(o.logging.flushFrequencyMs, 60_000);
  assert.is(o.logging.stderrThreshold, 'WARNING');
  assert.equal(o.logging.backtraceAt, { file: 'server.ts', line: 12 });
  assert.is(o.logging.logDir, '/tmp/x');
  assert.is(parse('apiserver', ['--v=7']).logging.verbosity, 7);
});

test('repeated slice flags replace the default and then accumulate', () => {
  const o = parse('apiserver', ['--tls-cipher-suites=TLS_AES_128_GCM_SHA256', '--tls-cipher-suites', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256']);
  assert.equal(o.tls.cipherSuites, ['TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256']);
  const sni = parse('apiserver', ['--tls-sni-cert-key=a.crt,a.key', '--tls-sni-cert-key=b.crt,b.key:*.b.com']);
  assert.equal(sni.tls.sniCertKeys.map((s) => s.certFile), ['a.crt', 'b.crt']);
});

test('an unknown flag is rejected with exit code 1 naming it', () => {
  const { error, stderr } = parseError('apiserver', ['--bogus-flag']);
  assert.is(error.exitCode, 1);
  assert.match(stderr, /unknown option '--bogus-flag'/);
});

test('a malformed value is rejected naming the flag', () => {
  const { error, stderr } = parseError('apiserver', ['--log-flush-frequency=often']);
  assert.is(error.exitCode, 1);
  assert.match(stderr, /--log-flush-frequency/);
  assert.match(stderr, /1m0s/);
  assert.match(parseError('apiserver', ['--profiling=maybe']).stderr, /--profiling.*true or false/);
  assert.match(parseError('apiserver', ['--tls-min-version=VersionTLS9']).stderr, /VersionTLS12/);
  assert.throws(() => parse('scheduler', ['--tls-min-version=VersionTLS10']), /TLS 1.0 and 1.1 are insecure/);
  assert.match(parseError('apiserver', ['-v', 'x']).stderr, /--v/);
});

test('--version prints svc v<package version> and exits 0', () => {
  const p = program('apiserver');
  try {
    p.cmd.parse(['--version'], { from: 'user' });
    assert.unreachable();
  } catch (e) {
    assert.is((e as CommanderError).exitCode, 0);
  }
  assert.match(p.out.join(''), /^svc v\d+\.\d+\.\d+\n$/);
});

test('-h prints help listing the common flags and exits 0', () => {
  const p = program('scheduler');
  try {
    p.cmd.parse(['-h'], { from: 'user' });
    assert.unreachable();
  } catch (e) {
    assert.is((e as CommanderError).exitCode, 0);
  }
  const help = p.out.join('');
  for (const f of ['--log-flush-frequency', '--vmodule', '--tls-sni-cert-key', '--feature-gates', '--profiling', '-v, --v']) {
    assert.ok(help.includes(f), `help lists ${f}`);
  }
  assert.match(help, /default: "?5s"?/);
});

test('cross-flag rules are checked on resolution', () => {
  assert.throws(() => parse('apiserver', ['--tls-cert-file=a.crt']), /--tls-cert-file and --tls-private-key-file must be given together/);
  assert.throws(() => parse('apiserver', ['--tls-cipher-suites=TLS_FOO']), /--tls-cipher-suites/);
  assert.throws(() => parse('apiserver', ['--feature-gates=Nope=true']), /unrecognized feature gate: Nope/);
  assert.throws(() => parse('apiserver', ['--show-hidden-metrics-for-version=1']), /--show-hidden-metrics-for-version/);
  assert.throws(() => parse('apiserver', ['--secure-port=70000']), /--secure-port/);
});

test.run();
