/**
 * Value parsers for the option types named in the component spec (`duration`, `stringSlice`,
 * `portRange`, `namedCertKey` ...). Each parser takes the flag name so that every error names the
 * flag and shows an accepted example; errors are commander `InvalidArgumentError`s so commander
 * reports them as "option '--x' argument 'y' is invalid" and exits 1.
 */
import { InvalidArgumentError } from 'commander';
import { isIP } from 'node:net';
import { parseBoolWord } from '../api/booleans.js';
import { DURATION_EXPECTED, parseDurationMs } from '../api/duration.js';

/** A malformed flag value. The message names the flag, the value and an accepted example. */
export class FlagValueError extends InvalidArgumentError {
  readonly flag: string;
  readonly value: string;
  constructor(flag: string, value: string, expected: string) {
    super(`invalid value ${JSON.stringify(value)} for ${flag}: ${expected}`);
    this.flag = flag;
    this.value = value;
  }
}

// ---------------------------------------------------------------------------------------------
// duration (Go's time.ParseDuration syntax; the parser lives in src/api/duration.ts)

export { formatDuration } from '../api/duration.js';

/** Parses a Go-style duration flag into milliseconds; a malformed value names the flag. */
export function parseDuration(flag: string, value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined) throw new FlagValueError(flag, value, DURATION_EXPECTED);
  return ms;
}

// ---------------------------------------------------------------------------------------------
// booleans and numbers

/** Go's strconv.ParseBool: 1, t, T, true, TRUE, True and their false counterparts. */
export function parseBool(flag: string, value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  const b = parseBoolWord(value);
  if (b !== undefined) return b;
  throw new FlagValueError(flag, value, `expected true or false, e.g. ${flag}=false`);
}

export interface IntRange {
  min: number;
  max: number;
  /** Name used in the error, e.g. 'int32'. */
  typeName: string;
}

export const INT: IntRange = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, typeName: 'int' };
export const INT32: IntRange = { min: -2147483648, max: 2147483647, typeName: 'int32' };
export const UINT: IntRange = { min: 0, max: Number.MAX_SAFE_INTEGER, typeName: 'uint' };

/** An integer (decimal, or 0x hex) within `range`. */
export function parseInteger(flag: string, value: string, range: IntRange = INT): number {
  const v = value.trim();
  const ok = /^[+-]?\d+$/.test(v) || /^0x[0-9a-f]+$/i.test(v);
  const n = ok ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new FlagValueError(flag, value, `expected an integer (${range.typeName}), e.g. ${flag}=10`);
  }
  if (n < range.min || n > range.max) {
    throw new FlagValueError(flag, value, `expected an ${range.typeName} between ${range.min} and ${range.max}`);
  }
  return n;
}

const FLOAT32_MAX = 3.4028234663852886e38;

/** A finite float; `float32` additionally rejects values beyond float32 range. */
export function parseFloatValue(flag: string, value: string, typeName: 'float32' | 'float64' = 'float64'): number {
  const v = value.trim();
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new FlagValueError(flag, value, `expected a number (${typeName}), e.g. ${flag}=0.5`);
  if (typeName === 'float32' && Math.abs(n) > FLOAT32_MAX) {
    throw new FlagValueError(flag, value, 'expected a number within float32 range');
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// lists and maps

/** Splits a comma-separated list; empty input gives []. Items are trimmed; empty items dropped. */
export function parseStringSlice(value: string): string[] {
  if (value.trim() === '') return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `a=b,c=d` -> { a: 'b', c: 'd' }. A key without `=` is an error; later keys win. */
export function parseMapStringString(flag: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of parseStringSlice(value)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new FlagValueError(flag, value, `expected key=value pairs separated by commas, e.g. ${flag}=a=b,c=d`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// network values

export interface PortRange {
  base: number;
  size: number;
}

/** `30000-32767`, `30000+767` (base plus offset, inclusive) or a single port `8080`. */
export function parsePortRange(flag: string, value: string): PortRange {
  const fail = (why: string): never => {
    throw new FlagValueError(flag, value, `${why}; expected e.g. 30000-32767, 30000+767 or 8080`);
  };
  const v = value.trim();
  const port = (s: string): number => {
    if (!/^\d+$/.test(s)) fail('not a port number');
    const n = Number(s);
    if (n < 1 || n > 65535) fail('ports must be between 1 and 65535');
    return n;
  };
  let m: RegExpExecArray | null;
  if ((m = /^(\d+)-(\d+)$/.exec(v))) {
    const lo = port(m[1] as string);
    const hi = port(m[2] as string);
    if (hi < lo) fail('the end of the range is below its start');
    return { base: lo, size: hi - lo + 1 };
  }
  if ((m = /^(\d+)\+(\d+)$/.exec(v))) {
    const lo = port(m[1] as string);
    const offset = Number(m[2]);
    if (lo + offset > 65535) fail('the range ends above 65535');
    return { base: lo, size: offset + 1 };
  }
  return { base: port(v), size: 1 };
}

/** Formats a port range as `base-last`. */
export function formatPortRange(r: PortRange): string {
  return r.size === 1 ? String(r.base) : `${r.base}-${r.base + r.size - 1}`;
}

/** An IPv4 or IPv6 address (no brackets, no port). */
export function parseIp(flag: string, value: string): string {
  const v = value.trim();
  if (isIP(v) === 0) throw new FlagValueError(flag, value, `expected an IPv4 or IPv6 address, e.g. ${flag}=10.0.0.1 or ${flag}=::1`);
  return v;
}

/** One CIDR `ip/prefix` with a prefix length valid for the address family. */
export function parseCidr(flag: string, value: string): string {
  const v = value.trim();
  const slash = v.lastIndexOf('/');
  const fail = (): never => {
    throw new FlagValueError(flag, value, `expected CIDRs such as 10.0.0.0/8 or fd00::/64, comma-separated`);
  };
  if (slash < 0) fail();
  const family = isIP(v.slice(0, slash));
  const bitsText = v.slice(slash + 1);
  if (family === 0 || !/^\d+$/.test(bitsText)) fail();
  const bits = Number(bitsText);
  if (bits > (family === 4 ? 32 : 128)) fail();
  return v;
}

/** Comma-separated CIDRs. */
export function parseCidrs(flag: string, value: string): string[] {
  return parseStringSlice(value).map((c) => parseCidr(flag, c));
}

// ---------------------------------------------------------------------------------------------
// TLS and logging values

export interface NamedCertKey {
  certFile: string;
  keyFile: string;
  /** Explicit domain patterns (exact hosts or `*.domain`); empty: take names from the cert. */
  names: string[];
}

/** `cert.crt,key.key` or `cert.crt,key.key:*.foo.com,foo.com`. */
export function parseNamedCertKey(flag: string, value: string): NamedCertKey {
  const fail = (): never => {
    throw new FlagValueError(flag, value, `expected certfile,keyfile[:name,name...], e.g. ${flag}=cert.crt,key.key:*.foo.com,foo.com`);
  };
  const v = value.trim();
  const colon = v.lastIndexOf(':');
  // A colon belongs to the name list only if what precedes it already holds cert and key.
  let files = v;
  let names: string[] = [];
  if (colon >= 0 && v.slice(0, colon).includes(',')) {
    files = v.slice(0, colon);
    names = parseStringSlice(v.slice(colon + 1));
    if (names.length === 0) fail();
  }
  const parts = files.split(',').map((s) => s.trim());
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') fail();
  return { certFile: parts[0] as string, keyFile: parts[1] as string, names };
}

export interface TraceLocation {
  file: string;
  line: number;
}

/** `file.go:N`; `:0` (the default) means off and is returned as undefined. */
export function parseTraceLocation(flag: string, value: string): TraceLocation | undefined {
  const v = value.trim();
  if (v === '' || v === ':0') return undefined;
  const m = /^(.+):(\d+)$/.exec(v);
  if (!m || Number(m[2]) <= 0) throw new FlagValueError(flag, value, `expected file:line, e.g. ${flag}=server.ts:42`);
  return { file: m[1] as string, line: Number(m[2]) };
}

export interface ModuleVerbosity {
  /** Glob pattern (`*` and `?`) matched against a module name. */
  pattern: string;
  level: number;
}

/** `pattern=N,...` (klog's --vmodule). */
export function parseModuleSpec(flag: string, value: string): ModuleVerbosity[] {
  return parseStringSlice(value).map((item) => {
    const m = /^([^=]+)=(\d+)$/.exec(item);
    if (!m) throw new FlagValueError(flag, value, `expected pattern=N settings, e.g. ${flag}=storage*=4,watch=6`);
    return { pattern: (m[1] as string).trim(), level: Number(m[2]) };
  });
}

export const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'FATAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** INFO, WARNING, ERROR, FATAL (any case) or 0-3. */
export function parseSeverity(flag: string, value: string): Severity {
  const v = value.trim().toUpperCase();
  if (/^[0-3]$/.test(v)) return SEVERITIES[Number(v)] as Severity;
  if ((SEVERITIES as readonly string[]).includes(v)) return v as Severity;
  throw new FlagValueError(flag, value, `expected INFO, WARNING, ERROR, FATAL or 0-3, e.g. ${flag}=ERROR`);
}

/** klog's verbosity Level: a non-negative integer. */
export function parseLevel(flag: string, value: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v)) throw new FlagValueError(flag, value, `expected a verbosity level 0 or more, e.g. ${flag}=4`);
  return Number(v);
}

// ---------------------------------------------------------------------------------------------
// commander adapters

const defaultLists = new WeakSet<object>();

/**
 * Marks an array as a flag's default, so that the first value given on the command line replaces
 * it and later ones accumulate (pflag's behaviour for repeated slice flags).
 */
export function listDefault<T>(items: T[]): T[] {
  const copy = [...items];
  defaultLists.add(copy);
  return copy;
}

/** Accumulates `next` onto `previous`, replacing `previous` when it is still the default. */
export function accumulate<T>(previous: T[] | undefined, next: T[]): T[] {
  if (previous === undefined || defaultLists.has(previous)) return next;
  return [...previous, ...next];
}
