import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closeLogger,
  createLogger,
  defaultLoggingOptions,
  flushLogger,
  moduleVerbosity,
  verbosityToPinoLevel,
  type LoggingOptions,
} from '../../src/cli/logging.js';

function collector(): { lines: () => Record<string, unknown>[]; write(s: string): void } {
  const chunks: string[] = [];
  return {
    write: (s: string) => void chunks.push(s),
    lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

function options(over: Partial<LoggingOptions>): LoggingOptions {
  return { ...defaultLoggingOptions(), ...over };
}

test('-v maps 0-3 to info, 4-5 to debug and 6+ to trace', () => {
  assert.is(verbosityToPinoLevel(0), 'info');
  assert.is(verbosityToPinoLevel(3), 'info');
  assert.is(verbosityToPinoLevel(4), 'debug');
  assert.is(verbosityToPinoLevel(5), 'debug');
  assert.is(verbosityToPinoLevel(6), 'trace');
  assert.is(verbosityToPinoLevel(10), 'trace');
  const err = collector();
  const quiet = createLogger('apiserver', options({ stderr: err }));
  quiet.debug('hidden');
  quiet.info('shown');
  const loud = createLogger('apiserver', options({ verbosity: 4, stderr: err }));
  loud.debug('debug shown');
  loud.trace('trace hidden');
  assert.equal(err.lines().map((l) => l['msg']), ['shown', 'debug shown']);
});

test('--vmodule sets the level of module children by glob', () => {
  assert.is(moduleVerbosity([{ pattern: 'storage*', level: 6 }], 'storage-etcd'), 6);
  assert.is(moduleVerbosity([{ pattern: 'stor?ge', level: 4 }], 'storage'), 4);
  assert.is(moduleVerbosity([{ pattern: 'storage', level: 4 }], 'storage-etcd'), undefined);
  const err = collector();
  const logger = createLogger('apiserver', options({ vmodule: [{ pattern: 'watch*', level: 6 }], stderr: err }));
  logger.child({ module: 'watchcache' }).trace('traced');
  logger.child({ module: 'handlers' }).debug('not traced');
  logger.child({ module: 'watchcache' }).child({ resource: 'pods' }).trace('grandchild traced');
  assert.equal(err.lines().map((l) => l['msg']), ['traced', 'grandchild traced']);
});

test('--skip-headers drops time, pid and hostname but keeps level', () => {
  const err = collector();
  createLogger('scheduler', options({ stderr: err })).info('with');
  createLogger('scheduler', options({ skipHeaders: true, stderr: err })).info('without');
  const [withHeaders, without] = err.lines();
  assert.ok(withHeaders && 'time' in withHeaders && 'pid' in withHeaders && 'hostname' in withHeaders);
  assert.ok(without && !('time' in without) && !('pid' in without) && !('hostname' in without));
  assert.is(without['level'], 30);
  assert.is(without['component'], 'scheduler');
});

test('--logtostderr=false writes the file and only records at or above --stderrthreshold to stderr', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  const err = collector();
  const logger = createLogger('controller-manager', options({ logToStderr: false, logDir: dir, stderrThreshold: 'WARNING', stderr: err }));
  logger.info('file only');
  logger.warn('both');
  closeLogger(logger);
  const file = readFileSync(join(dir, 'controller-manager.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(file.map((l) => l['msg']), ['log file created', 'file only', 'both']);
  assert.equal(err.lines().map((l) => l['msg']), ['both']);
});

test('--alsologtostderr sends everything to stderr too and --skip-log-headers omits the file header', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  const err = collector();
  const path = join(dir, 'x.log');
  const logger = createLogger('apiserver', options({ logToStderr: false, alsoLogToStderr: true, skipLogHeaders: true, logFile: path, stderr: err }));
  logger.info('one');
  flushLogger(logger);
  assert.equal(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg), ['one']);
  assert.equal(err.lines().map((l) => l['msg']), ['one']);
  closeLogger(logger);
});

test('file output is buffered until the flush interval', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  const path = join(dir, 'f.log');
  const logger = createLogger('apiserver', options({ logToStderr: false, skipLogHeaders: true, logFile: path, flushFrequencyMs: 50, stderr: collector() }));
  logger.info('later');
  assert.is(statSync(path).size, 0);
  await new Promise((r) => setTimeout(r, 150));
  assert.match(readFileSync(path, 'utf8'), /"later"/);
  closeLogger(logger);
});

test('--log-file-max-size rotates the file to .1 when a write would pass it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  const path = join(dir, 'r.log');
  const logger = createLogger('apiserver', options({ logToStderr: false, logFile: path, logFileMaxSizeBytes: 400, stderr: collector() }));
  for (let i = 0; i < 20; i++) logger.info({ i }, 'a line of some length to fill the file');
  closeLogger(logger);
  assert.ok(existsSync(`${path}.1`), 'rotated file exists');
  assert.ok(statSync(path).size <= 400, `current file within the limit: ${statSync(path).size}`);
  assert.ok(statSync(`${path}.1`).size <= 400);
  const current = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.is(current[0]?.['msg'], 'log file created', 'a new file starts with its header');
  assert.is(current[current.length - 1]?.['i'], 19);
});

test('--log-file-max-size 0 never rotates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  const path = join(dir, 'u.log');
  const logger = createLogger('apiserver', options({ logToStderr: false, logFile: path, logFileMaxSizeMB: 0, stderr: collector() }));
  for (let i = 0; i < 50; i++) logger.info('x'.repeat(100));
  closeLogger(logger);
  assert.not.ok(existsSync(`${path}.1`));
});

test('--add-dir-header adds the caller with its directory and --log-backtrace-at adds a stack at file:N', () => {
  const err = collector();
  const logger = createLogger('apiserver', options({ addDirHeader: true, stderr: err }));
  const here = /logging\.test\.(?:ts|js):(\d+)/.exec(new Error().stack ?? ''); logger.info('located');
  assert.ok(here);
  const [line] = err.lines();
  assert.match(String(line?.["caller"]), new RegExp(`/test/cli/logging\\.test\\.(ts|js):${here![1]}$`));

  const err2 = collector();
  const file = /(logging\.test\.(?:ts|js))/.exec(String(line?.['caller']))![1] as string;
  const traced = createLogger('apiserver', options({ backtraceAt: { file, line: Number(here![1]) + 9 }, stderr: err2 }));
  traced.info('not here');
  traced.info('here');
  const out = err2.lines();
  assert.is(out[0]?.['backtrace'], undefined);
  assert.match(String(out[1]?.['backtrace']), /logging\.test/);
});

test.run();
