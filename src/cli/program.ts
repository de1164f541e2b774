/**
 * The shape every daemon executable shares: a commander program with the common flags, and a
 * runner that parses, starts, reports start-up errors as one line, and shuts down on signals.
 */
import { Command, CommanderError } from 'commander';
import type { Logger } from 'pino';
import { addCommonOptions, type Component } from './common-options.js';
import { closeLogger, flushLogger } from './logging.js';
import { defaultValue, explicitlySetFlags, longFlag, optionKey, registeredFlags } from './option-table.js';
import { versionLine } from './version.js';

export interface DaemonProgramOptions {
  /** Chooses the common flags' per-component defaults (e.g. --secure-port). */
  component: Component;
  description: string;
  /** The command's name when it differs from the component (`svc up`'s `up`); default `component`. */
  name?: string;
  /** How the error hint names the command, e.g. `svc up`; default the name. */
  displayName?: string;
}

/**
 * A program named after the component with `--version` (prints `svc vX.Y.Z`), `-h/--help`, the
 * common flags, no positional arguments, and errors thrown (exitOverride) instead of exiting, so
 * callers and tests decide what exiting means.
 */
export function createDaemonProgram(o: DaemonProgramOptions): Command {
  const name = o.name ?? o.component;
  const cmd = new Command(name)
    .description(o.description)
    .usage('[flags]')
    .version(versionLine(), '--version', 'Print version and quit.')
    .helpOption('-h, --help', 'Print help.')
    .allowExcessArguments(false)
    .configureHelp({
      sortOptions: true,
      // Show only the spec's default text (set by addFlags), never commander's preset or raw value.
      optionDescription: (opt) =>
        opt.defaultValueDescription ? `${opt.description} (default: ${opt.defaultValueDescription})` : opt.description,
    })
    .showHelpAfterError(`(run "${o.displayName ?? name} --help" to list the flags)`)
    .exitOverride();
  addCommonOptions(cmd, o.component);
  return cmd;
}

/**
 * Refuses to start when the user set a flag whose behaviour is not built yet to anything but its
 * default: a daemon must never accept an option it would ignore (for a security option, ignoring
 * it fails open). Setting such a flag to its default changes nothing and is accepted. Returns
 * the flags refused (empty when none); `refuseUnhonouredFlags` throws for them.
 */
export function unhonouredFlags(cmd: Command): string[] {
  const set = explicitlySetFlags(cmd);
  const out: string[] = [];
  for (const spec of registeredFlags(cmd)) {
    const flag = longFlag(spec);
    if (spec.honoured !== false || !set.has(flag)) continue;
    if (JSON.stringify(cmd.getOptionValue(optionKey(flag))) === JSON.stringify(defaultValue(spec))) continue;
    out.push(flag);
  }
  return out;
}

/** Throws naming every flag `unhonouredFlags` finds (see there). */
export function refuseUnhonouredFlags(cmd: Command): void {
  const flags = unhonouredFlags(cmd);
  if (flags.length === 0) return;
  throw new Error(
    `${flags.join(', ')} ${flags.length === 1 ? 'is' : 'are'} not built yet, so ${flags.length === 1 ? 'it' : 'they'} would have no effect; ` +
      `remove ${flags.length === 1 ? 'it' : 'them'} (or give the default) to start (see --help)`,
  );
}

export interface RunningDaemon {
  shutdown(): Promise<void>;
}

export interface DaemonStartContext {
  /** Tells the runner which logger to flush and close on exit. */
  setLogger(logger: Logger): void;
  /**
   * Ends the process at once with `code` after writing `<name>: error: <message>` (e.g. leadership
   * lost: the daemon must stop acting now, without a graceful shutdown).
   */
  fail(code: number, message: string): void;
  /** Ends the process with exit 0 after a one-shot task (e.g. `--write-config-to`). */
  finish(): void;
}

/** What the runner touches of the process; injectable for tests. */
export interface DaemonProcess {
  argv: string[];
  exit(code: number): void;
  writeErr(line: string): void;
  onSignal(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void;
}

export const realProcess: DaemonProcess = {
  argv: process.argv,
  exit: (code) => process.exit(code),
  writeErr: (line) => process.stderr.write(line),
  onSignal: (signal, handler) => {
    process.on(signal, handler);
  },
};

export interface RunDaemonOptions<R extends RunningDaemon> {
  program: Command;
  /** Parses options, builds the logger and config, and starts serving. */
  start(program: Command, ctx: DaemonStartContext): Promise<R>;
  process?: DaemonProcess;
}

/**
 * Parses `process.argv`, starts the daemon and wires SIGTERM/SIGINT to a graceful shutdown
 * (exit 0); a second signal exits at once (exit 1). A bad flag exits with commander's code after
 * its message; any start-up error prints `<component>: error: <message>` and exits 1.
 */
export async function runDaemon<R extends RunningDaemon>(o: RunDaemonOptions<R>): Promise<R | undefined> {
  const proc = o.process ?? realProcess;
  try {
    o.program.parse(proc.argv, { from: 'node' });
  } catch (e) {
    if (e instanceof CommanderError) {
      proc.exit(e.exitCode);
      return undefined;
    }
    throw e;
  }
  return superviseDaemon(o);
}

/**
 * The part of `runDaemon` after parsing, for a program commander has already parsed (a subcommand
 * such as `svc up`, whose action calls this): start, report a start-up error as one line (exit 1),
 * and wire SIGTERM/SIGINT to a graceful shutdown.
 */
export async function superviseDaemon<R extends RunningDaemon>(o: RunDaemonOptions<R>): Promise<R | undefined> {
  const proc = o.process ?? realProcess;
  const parent = o.program.parent;
  const name = parent ? `${parent.name()} ${o.program.name()}` : o.program.name();
  let logger: Logger | undefined;
  const ctx: DaemonStartContext = {
    setLogger: (l) => (logger = l),
    fail: (code, message) => {
      if (logger) closeLogger(logger);
      proc.writeErr(`${name}: error: ${message}\n`);
      proc.exit(code);
    },
    finish: () => {
      if (logger) closeLogger(logger);
      proc.exit(0);
    },
  };
  let running: R;
  try {
    // Every daemon, before anything starts: a flag it would ignore is refused, never accepted.
    refuseUnhonouredFlags(o.program);
    running = await o.start(o.program, ctx);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (logger) {
      // The one stderr line below is the report; the stack is kept for -v 4 and log files.
      logger.debug({ err: e }, 'start-up failed');
      closeLogger(logger);
    }
    proc.writeErr(`${name}: error: ${message.split('\n')[0]}\n`);
    proc.exit(1);
    return undefined;
  }
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      proc.writeErr(`${name}: second ${signal}, exiting now\n`);
      if (logger) flushLogger(logger);
      proc.exit(1);
      return;
    }
    stopping = true;
    logger?.info({ signal }, 'shutting down');
    running.shutdown().then(
      () => {
        logger?.info('shut down');
        if (logger) closeLogger(logger);
        proc.exit(0);
      },
      (e: unknown) => {
        logger?.error({ err: e }, 'shutdown failed');
        if (logger) closeLogger(logger);
        proc.writeErr(`${name}: error during shutdown: ${e instanceof Error ? e.message : String(e)}\n`);
        proc.exit(1);
      },
    );
  };
  proc.onSignal('SIGTERM', () => onSignal('SIGTERM'));
  proc.onSignal('SIGINT', () => onSignal('SIGINT'));
  return running;
}
