/**
 * Loading user controller modules (`svc run <module...>`, `svc up --controller-module`): a module
 * is a JavaScript file (ES module or CommonJS) whose exports hold `defineController` definitions:
 * a default export (one definition or an array of them), a named `controllers` array, or any named
 * export that is a definition. Definitions are recognised by shape (name, spec.reconcile, start),
 * so a module may bring its own copy of the runtime.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ControllerDefinition } from '../runtime/define-controller.js';

export class ControllerModuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControllerModuleError';
  }
}

export function isControllerDefinition(v: unknown): v is ControllerDefinition {
  if (!v || typeof v !== 'object') return false;
  const d = v as Partial<ControllerDefinition>;
  return typeof d.name === 'string' && typeof d.start === 'function' && !!d.spec && typeof d.spec.reconcile === 'function';
}

/** The definitions a module's namespace object exports, in export order, each once. */
export function definitionsOf(ns: Record<string, unknown>): ControllerDefinition[] {
  const out: ControllerDefinition[] = [];
  const add = (v: unknown) => {
    for (const d of Array.isArray(v) ? v : [v]) if (isControllerDefinition(d) && !out.includes(d)) out.push(d);
  };
  const def = ns['default'];
  add(def);
  add(ns['controllers']);
  for (const [k, v] of Object.entries(ns)) if (k !== 'default' && k !== 'controllers') add(v);
  // A CommonJS module's `module.exports = { ... }` arrives as the default export: look inside.
  if (def && typeof def === 'object' && !Array.isArray(def) && !isControllerDefinition(def)) {
    for (const d of definitionsOf(def as Record<string, unknown>)) if (!out.includes(d)) out.push(d);
  }
  return out;
}

/**
 * Imports every module (paths relative to the working directory) and returns their controllers.
 * Throws ControllerModuleError for a missing file, a module that fails to load, one without
 * controllers, or two controllers with one name (names key metrics, logs and Events).
 */
export async function loadControllerModules(paths: readonly string[]): Promise<ControllerDefinition[]> {
  const all: ControllerDefinition[] = [];
  const from = new Map<string, string>();
  for (const p of paths) {
    const full = resolve(p);
    try {
      if (!(await stat(full)).isFile()) throw new Error('not a file');
    } catch (e) {
      throw new ControllerModuleError(`controller module ${p}: cannot read it (${(e as Error).message})`);
    }
    let ns: Record<string, unknown>;
    try {
      ns = (await import(pathToFileURL(full).href)) as Record<string, unknown>;
    } catch (e) {
      throw new ControllerModuleError(`controller module ${p}: failed to load: ${(e as Error).message.split('\n')[0]}`);
    }
    const defs = definitionsOf(ns);
    if (defs.length === 0) {
      throw new ControllerModuleError(
        `controller module ${p} exports no controllers: export defineController(...) results, as named exports, a default export or a "controllers" array`,
      );
    }
    for (const d of defs) {
      const other = from.get(d.name);
      if (other !== undefined) throw new ControllerModuleError(`controller name "${d.name}" is used twice (in ${other} and ${p}); names must be unique`);
      from.set(d.name, p);
      all.push(d);
    }
  }
  return all;
}

/**
 * The default leader-election lock name for a set of controllers: their names, sorted and joined
 * by '.', so every replica hosting the same modules contends for one lock and different sets do
 * not block each other. Made a valid object name (lower case, [a-z0-9.-]); long sets are cut and
 * suffixed with a hash.
 */
export function defaultLockName(definitions: readonly ControllerDefinition[]): string {
  const raw = [...new Set(definitions.map((d) => d.name))].sort().join('.');
  let name = raw.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  if (!name) name = 'svc-run';
  if (name.length > 200) {
    let h = 0;
    for (const c of raw) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
    name = `${name.slice(0, 190).replace(/[^a-z0-9]+$/, '')}-${h.toString(16)}`;
  }
  return name;
}
