/**
 * Declarative flag definitions: one row per flag with the spec's type, default and meaning,
 * registered on a commander program. Keeping the table as data lets the help text, the parsers
 * and the "set but not yet honoured" warnings come from the same place.
 */
import { Command, Option } from 'commander';
import {
  accumulate,
  formatDuration,
  FlagValueError,
  formatPortRange,
  INT,
  INT32,
  listDefault,
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
  UINT,
  type ModuleVerbosity,
  type NamedCertKey,
  type PortRange,
} from './flag-types.js';

export type FlagType =
  | 'bool'
  | 'string'
  | 'duration'
  | 'int'
  | 'int32'
  | 'uint'
  | 'float32'
  | 'float'
  | 'stringSlice'
  | 'stringArray'
  | 'mapStringString'
  | 'portRange'
  | 'cidrs'
  | 'ip'
  | 'namedCertKey'
  | 'traceLocation'
  | 'moduleSpec'
  | 'severity'
  | 'level';

/** Parsed value of one flag (durations in ms). */
export type FlagValue = string | number | boolean | string[] | Record<string, string> | PortRange | NamedCertKey[] | ModuleVerbosity[] | undefined;

export interface FlagSpec {
  /** Commander flags: '--secure-port' or '-v, --v'. */
  flags: string;
  type: FlagType;
  help: string;
  /** Parsed default (ms for durations); omitted means "no default" (undefined, [] or {}). */
  default?: FlagValue;
  /** Text shown as the default in help; derived from `default` when omitted. */
  defaultText?: string;
  deprecated?: boolean;
  /** Kept out of --help (still parsed). */
  hidden?: boolean;
  /** Value choices; any other value is rejected. */
  choices?: readonly string[];
  /**
   * False when the flag is parsed and validated but its behaviour is not implemented yet;
   * setting it to anything but its default is refused at start-up (see refuseUnhonouredFlags).
   */
  honoured?: boolean;
  /** Replaces the type's parser (the type still names the help placeholder and empty default). */
  parse?: (flag: string, raw: string, previous: unknown) => FlagValue;
}

const PLACEHOLDER: Record<FlagType, string> = {
  bool: '[bool]',
  string: '<string>',
  duration: '<duration>',
  int: '<int>',
  int32: '<int32>',
  uint: '<uint>',
  float32: '<float32>',
  float: '<float>',
  stringSlice: '<strings>',
  stringArray: '<string>',
  mapStringString: '<mapStringString>',
  portRange: '<portRange>',
  cidrs: '<cidrs>',
  ip: '<ip>',
  namedCertKey: '<namedCertKey>',
  traceLocation: '<traceLocation>',
  moduleSpec: '<pattern=N,...>',
  severity: '<severity>',
  level: '<Level>',
};

/** The long flag name, e.g. '--secure-port'. */
export function longFlag(spec: FlagSpec): string {
  const m = /--[A-Za-z0-9][\w-]*/.exec(spec.flags);
  if (!m) throw new Error(`flag spec without a long name: ${spec.flags}`);
  return m[0];
}

/** The commander attribute name of a long flag: '--secure-port' -> 'securePort'. */
export function optionKey(flag: string): string {
  return flag
    .replace(/^--/, '')
    .split('-')
    .reduce((s, w, i) => (i === 0 ? w : s + w.charAt(0).toUpperCase() + w.slice(1)), '');
}

/** The value a flag has when not given: its spec default, or its type's empty value. */
export function defaultValue(spec: FlagSpec): FlagValue {
  return spec.default === undefined ? emptyDefault(spec.type) : spec.default;
}

function emptyDefault(type: FlagType): FlagValue {
  switch (type) {
    case 'bool':
      return false;
    case 'stringSlice':
    case 'stringArray':
    case 'cidrs':
    case 'namedCertKey':
    case 'moduleSpec':
      return [];
    case 'mapStringString':
      return {};
    case 'int':
    case 'int32':
    case 'uint':
    case 'float32':
    case 'float':
    case 'level':
      return 0;
    default:
      return undefined;
  }
}

function defaultText(spec: FlagSpec, value: FlagValue): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (value === undefined || value === '') return undefined;
  switch (spec.type) {
    case 'duration':
      return formatDuration(value as number);
    case 'portRange':
      return formatPortRange(value as PortRange);
    case 'stringSlice':
    case 'stringArray':
    case 'cidrs':
      return (value as string[]).length === 0 ? undefined : `[${(value as string[]).join(',')}]`;
    case 'bool':
      return value === true ? 'true' : undefined;
    case 'namedCertKey':
    case 'moduleSpec':
    case 'mapStringString':
      return undefined;
    default:
      return String(value);
  }
}

function parserFor(spec: FlagSpec, flag: string): (raw: string, previous: unknown) => FlagValue {
  switch (spec.type) {
    case 'bool':
      return (raw) => parseBool(flag, raw as string | boolean);
    case 'string':
      return (raw) => raw;
    case 'duration':
      return (raw) => parseDuration(flag, raw);
    case 'int':
      return (raw) => parseInteger(flag, raw, INT);
    case 'int32':
      return (raw) => parseInteger(flag, raw, INT32);
    case 'uint':
      return (raw) => parseInteger(flag, raw, UINT);
    case 'float32':
      return (raw) => parseFloatValue(flag, raw, 'float32');
    case 'float':
      return (raw) => parseFloatValue(flag, raw, 'float64');
    case 'stringSlice':
      return (raw, prev) => accumulate(prev as string[] | undefined, parseStringSlice(raw));
    case 'stringArray':
      return (raw, prev) => accumulate(prev as string[] | undefined, [raw]);
    case 'mapStringString':
      return (raw, prev) => ({ ...(prev as Record<string, string> | undefined), ...parseMapStringString(flag, raw) });
    case 'portRange':
      return (raw) => parsePortRange(flag, raw);
    case 'cidrs':
      return (raw, prev) => accumulate(prev as string[] | undefined, parseCidrs(flag, raw));
    case 'ip':
      return (raw) => parseIp(flag, raw);
    case 'namedCertKey':
      return (raw, prev) => accumulate(prev as NamedCertKey[] | undefined, [parseNamedCertKey(flag, raw)]);
    case 'traceLocation':
      return (raw) => {
        const loc = parseTraceLocation(flag, raw);
        return loc ? `${loc.file}:${loc.line}` : ':0';
      };
    case 'moduleSpec':
      return (raw, prev) => accumulate(prev as ModuleVerbosity[] | undefined, parseModuleSpec(flag, raw));
    case 'severity':
      return (raw) => parseSeverity(flag, raw);
    case 'level':
      return (raw) => parseLevel(flag, raw);
  }
}

const specsOf = new WeakMap<Command, FlagSpec[]>();

/** Registers `specs` on `cmd`. A flag already present on `cmd` is skipped (first row wins). */
export function addFlags(cmd: Command, specs: readonly FlagSpec[]): Command {
  const known = specsOf.get(cmd) ?? [];
  specsOf.set(cmd, known);
  for (const spec of specs) {
    const flag = longFlag(spec);
    if (known.some((k) => longFlag(k) === flag)) continue;
    known.push(spec);
    const flags = spec.flags.includes('<') || spec.flags.includes('[') ? spec.flags : `${spec.flags} ${PLACEHOLDER[spec.type]}`;
    let help = spec.help;
    if (spec.deprecated) help += ' (DEPRECATED)';
    const opt = new Option(flags, help);
    const custom = spec.parse;
    const parse = custom ? (raw: string, prev: unknown) => custom(flag, raw, prev) : parserFor(spec, flag);
    opt.argParser((raw: string, previous: unknown) => {
      const value = parse(raw, previous);
      if (spec.choices && typeof value === 'string' && !spec.choices.includes(value)) {
        throw new FlagValueError(flag, value, `expected one of ${spec.choices.join(', ')}`);
      }
      return value;
    });
    if (spec.type === 'bool') opt.preset('true');
    const value = defaultValue(spec);
    const copied = Array.isArray(value) ? listDefault(value as unknown[]) : value;
    if (copied !== undefined) opt.default(copied, defaultText(spec, value) ?? '');
    if (spec.hidden) opt.hideHelp();
    cmd.addOption(opt);
  }
  return cmd;
}

/** The flag rows registered on `cmd` (for warnings about set-but-not-honoured flags). */
export function registeredFlags(cmd: Command): readonly FlagSpec[] {
  return specsOf.get(cmd) ?? [];
}

/** Long flag names the user gave on the command line. */
export function explicitlySetFlags(cmd: Command): Set<string> {
  const out = new Set<string>();
  for (const spec of registeredFlags(cmd)) {
    const flag = longFlag(spec);
    if (cmd.getOptionValueSource(optionKey(flag)) === 'cli') out.add(flag);
  }
  return out;
}

/** Typed access to commander's parsed values by long flag name. */
export class FlagValues {
  constructor(readonly values: Record<string, unknown>) {}

  private get(flag: string): unknown {
    return this.values[optionKey(flag)];
  }
  string(flag: string): string {
    const v = this.get(flag);
    return typeof v === 'string' ? v : '';
  }
  optionalString(flag: string): string | undefined {
    const v = this.string(flag);
    return v === '' ? undefined : v;
  }
  bool(flag: string): boolean {
    return this.get(flag) === true;
  }
  number(flag: string): number {
    const v = this.get(flag);
    return typeof v === 'number' ? v : 0;
  }
  list(flag: string): string[] {
    const v = this.get(flag);
    return Array.isArray(v) ? [...(v as string[])] : [];
  }
  map(flag: string): Record<string, string> {
    const v = this.get(flag);
    return v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Record<string, string>) } : {};
  }
  portRange(flag: string): PortRange {
    return this.get(flag) as PortRange;
  }
  namedCertKeys(flag: string): NamedCertKey[] {
    return this.list(flag) as unknown as NamedCertKey[];
  }
  modules(flag: string): ModuleVerbosity[] {
    return this.list(flag) as unknown as ModuleVerbosity[];
  }
}
