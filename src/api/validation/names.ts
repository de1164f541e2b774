/**
 * The established name rules, each returning a list of problems (empty when valid), worded as
 * the established server words them so users recognise the messages.
 */

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';

const full = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const DNS1123_LABEL_RE = full(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN_RE = full(DNS1123_SUBDOMAIN_FMT);
const QUALIFIED_NAME_RE = full(QUALIFIED_NAME_FMT);
const LABEL_VALUE_RE = full(LABEL_VALUE_FMT);
const CONFIG_KEY_RE = full(CONFIG_KEY_FMT);
const ENV_VAR_NAME_RE = full(ENV_VAR_NAME_FMT);

/** "... (e.g. 'a',  or 'b', regex used for validation is '...')" exactly as established (double space included). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += ' or ';
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** Names that become one path segment (rbac roles and bindings): anything but `.`, `..`, `/` and `%`. */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  if (value.includes('/')) errs.push("may not contain '/'");
  if (value.includes('%')) errs.push("may not contain '%'");
  return errs;
}

/** `prefix/name` where prefix is an optional DNS subdomain and name a 63-character qualified name. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((e) => `prefix part ${e}`));
  } else {
    return [
      regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (name.length > 0 && !QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** Keys of configmap and secret data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!CONFIG_KEY_RE.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_NAME_RE.test(value)) {
    errs.push(regexError("a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit", ENV_VAR_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  }
  return errs;
}

/** IANA service names (container and service port names): at most 15 chars, lower case, a letter, no `--`. */
export function isValidPortName(value: string): string[] {
  const errs: string[] = [];
  if (value.length < 1 || value.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(value)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (value.includes('--')) errs.push("must not contain consecutive hyphens");
  if (value.length > 0 && !/[a-z]/.test(value)) errs.push('must contain at least one letter (a-z)');
  if (value.startsWith('-') || value.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

export function isValidIP(value: string): boolean {
  const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  if (v4.test(value)) return true;
  return /^[0-9a-fA-F:.]+$/.test(value) && value.includes(':') && value.split('::').length <= 2;
}

/** The kind of rule a name-like field follows; the same three as ResourceDefinition.nameRule. */
export type NameValidator = (value: string, prefix: boolean) => string[];

/**
 * With `prefix` (for generateName) a trailing '-' is allowed, as the generated suffix follows it:
 * the established servers mask it before checking.
 */
function masked(value: string, prefix: boolean): string {
  return prefix && value.endsWith('-') ? `${value.slice(0, -1)}a` : value;
}

export const nameIsDNSSubdomain: NameValidator = (v, prefix) => isDNS1123Subdomain(masked(v, prefix));
export const nameIsDNSLabel: NameValidator = (v, prefix) => isDNS1123Label(masked(v, prefix));
export const nameIsPathSegment: NameValidator = (v, prefix) => (prefix ? isValidPathSegmentName(v).filter((e) => !e.startsWith('may not be')) : isValidPathSegmentName(v));

export function nameValidatorFor(rule: 'subdomain' | 'label' | 'path-segment'): NameValidator {
  return rule === 'label' ? nameIsDNSLabel : rule === 'path-segment' ? nameIsPathSegment : nameIsDNSSubdomain;
}
