// --logging-format: short human lines for a person at a terminal, JSON lines for programs.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { humanLogs } from '../../src/cli/logging.js';

test('auto is text on a terminal and JSON otherwise; text and json force it', () => {
  assert.is(humanLogs({ format: 'auto' }, true), true);
  assert.is(humanLogs({ format: 'auto' }, false), false);
  assert.is(humanLogs({}, false), false);
  assert.is(humanLogs({ format: 'text' }, false), true);
  assert.is(humanLogs({ format: 'json' }, true), false);
});

test('text writes one short line per record: time, level, component/module, message, key fields', () => {
  const script = `
    const { createLogger, defaultLoggingOptions, closeLogger } = await import(${JSON.stringify(new URL('../../src/cli/logging.js', import.meta.url).href)});
    const logger = createLogger('svc-up', { ...defaultLoggingOptions(), format: 'text' });
    logger.child({ module: 'nodes' }).info({ nodes: 3 }, 'simulated nodes started');
    closeLogger(logger);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, '', 'nothing on standard output');
  assert.match(r.stderr, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: svc-up\/nodes: simulated nodes started \{"nodes":3\}\n$/);
});

test.run();
