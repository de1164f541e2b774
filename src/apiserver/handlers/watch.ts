/**
 * WATCH: a chunked stream of JSON events, one per line, served from the watch cache (or the store
 * when the cache is off), under the watch table of the spec:
 * unset = send the current state as ADDED then changes, 0 = the same from any (cached) state,
 * N = every change after N (410 ERROR event when N is older than the retained history).
 *
 * With the Table representation each event's object is a one-row Table (src/codec/table.ts); with
 * Protobuf each event is a length-prefixed WatchEvent frame (src/codec/protobuf/).
 *
 * Selectors are applied to the old and new object of each change, so an object moving into the
 * selection arrives as ADDED and one moving out as DELETED.
 *
 * Memory: the initial state is a snapshot of references to the cache's objects, streamed while the
 * response accepts writes (res.write() true, else until 'drain'); changes that arrive meanwhile wait
 * as references to the cache's batches (./watch-backlog.ts).
 *
 * Fairness: the initial state, and any backlog larger than a slice, is written a slice per turn
 * through the process's scheduler (../fair-streams.ts), round-robin with every other watch and
 * large LIST, so thousands of watch-lists opening at once never hold the event loop (a GET waited
 * 13 s behind 1,000 of them). A few live changes for a watch that is idle go out at once, in the
 * commit's own pass. A watch that still owes a change the cache's event window no longer holds is
 * ended, as the established server ends a watcher that cannot keep up; its client resumes. One
 * served from storage (started before the window, or no cache) that owes more than
 * MAX_QUEUED_CHANGES ends with a 410 ERROR event: its client lists again. A watch of one namespace is
 * handed only that namespace's live changes by the cache.
 */
import { deepFreeze, stringifyJson } from '../../api/json-walk.js';
import type { SvcObject } from '../../api/types.js';
import { badRequest, gone, type Status } from '../../api/status.js';
import type { KVEvent } from '../../storage/types.js';
import type { CacheEvent, CacheWatchHandle } from '../../storage/watch-cache.js';
import { includeObjectParam, objectTable, tableApiVersion } from '../../codec/table.js';
import { protobufWatchFrame } from '../representation.js';
import { parseResourceVersion, type ResourceStore } from '../resource-store.js';
import { boolParam, intParam, type RequestScope } from '../scope.js';
import { filterFromQuery } from '../selectors.js';
import { inProcessResponse, onRequestClose, spelledJson } from '../http.js';
import { WatchBacklog } from '../watch-backlog.js';
import { type FairStream, fairStreams, SLICE_BYTES, type StepResult } from '../fair-streams.js';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Change {
  type: EventType;
  key: string;
  revision: number;
  object: SvcObject;
  json: Buffer;
  prevObject?: SvcObject;
}

const frames = new WeakMap<Buffer, Map<EventType, Buffer>>();

/** `{"type":T,"object":...}\n`, built once per change and type however many watchers send it. */
function frame(type: EventType, json: Buffer): Buffer {
  let byType = frames.get(json);
  if (!byType) frames.set(json, (byType = new Map()));
  let f = byType.get(type);
  if (!f) {
    f = Buffer.concat([Buffer.from(`{"type":"${type}","object":`), json, Buffer.from('}\n')]);
    byType.set(type, f);
  }
  return f;
}

/**
 * The annotation of the bookmark that ends a watch-list's initial state, in both spellings (the
 * established clients wait for theirs; src/api/established-spelling.ts).
 */
export const INITIAL_EVENTS_END = { 'svc.io/initial-events-end': 'true', 'k8s.io/initial-events-end': 'true' };

/**
 * `sendInitialEvents` (watch-list): absent, true or false. As established, setting it requires
 * `resourceVersionMatch=NotOlderThan`, and true requires `allowWatchBookmarks=true` (the end of the
 * initial state is a bookmark).
 */
function sendInitialEventsParam(query: URLSearchParams, bookmarks: boolean): boolean | undefined {
  if (!query.has('sendInitialEvents')) return undefined;
  const value = boolParam(query, 'sendInitialEvents');
  if (query.get('resourceVersionMatch') !== 'NotOlderThan') {
    throw badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  }
  if (value && !bookmarks) throw badRequest('allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
  return value;
}

/** Default interval between bookmarks when the client allows them. */
export const BOOKMARK_INTERVAL_MS = 10_000;
/** Without a watch cache (no event window to measure against): changes a watch may have queued. */
export const MAX_QUEUED_CHANGES = 10_000;

export async function handleWatch(s: RequestScope): Promise<void> {
  const { store, info, res, services } = s;
  const filter = filterFromQuery(s.def, s.query);
  const bookmarks = boolParam(s.query, 'allowWatchBookmarks');
  const timeoutSeconds = intParam(s.query, 'timeoutSeconds');
  const includeObject = includeObjectParam(s.query);
  const asTable = s.output.representation === 'table';
  const asProtobuf = s.output.representation === 'protobuf';
  const rv = parseResourceVersion(s.query.get('resourceVersion') ?? undefined);
  const initialEvents = sendInitialEventsParam(s.query, bookmarks);
  const scope = store.keys.scope(info.namespace);
  const nameKey = filter.exactName !== undefined ? store.keys.key(info.namespace, filter.exactName) : undefined;
  const inScope = (key: string) => (nameKey ? key === nameKey : key.startsWith(scope));
  const matches = (o: SvcObject | undefined) => o !== undefined && (!filter.matches || filter.matches(o));

  const minTimeout = services.config.minRequestTimeoutSeconds;
  const lifetimeMs =
    timeoutSeconds !== undefined ? timeoutSeconds * 1000 : (minTimeout + Math.random() * minTimeout) * 1000;

  // Resolve the starting point before the headers go out, so errors (400/504) are ordinary responses.
  let backlog: WatchBacklog<{ key: string; object: SvcObject; json: Buffer }, Change>;
  let after: number;
  if (initialEvents === true) {
    // Watch-list: the state at least as new as resourceVersion, then a bookmark marking its end.
    const list = await store.list({ namespace: info.namespace, resourceVersion: rv ? String(rv) : undefined, resourceVersionMatch: rv ? 'NotOlderThan' : undefined, filtered: false });
    backlog = new WatchBacklog(list.items);
    after = list.revision;
  } else if (initialEvents === false && !rv) {
    // No initial state: changes from now on (the cache's position when it serves the watch).
    backlog = new WatchBacklog();
    after = store.cache ? store.cache.revision : await store.kv.currentRevision();
  } else if (rv === undefined || rv === 0) {
    const list = await store.list({ namespace: info.namespace, resourceVersion: rv === 0 ? '0' : undefined, filtered: false });
    backlog = new WatchBacklog(list.items);
    after = list.revision;
  } else {
    backlog = new WatchBacklog();
    after = rv;
  }

  res.writeHead(200, { 'content-type': s.output.contentType, 'cache-control': 'no-cache, private' });
  res.flushHeaders?.();
  const socket = (s.req as { socket?: { setNoDelay?: (v: boolean) => void } }).socket;
  socket?.setNoDelay?.(true);
  let lastSent = after;
  let closed = false;
  /** res.write() returned false: nothing more is written until 'drain'. */
  let blocked = false;
  /** Bytes written in the current step, against its budget (../fair-streams.ts). */
  let spent = 0;
  let budget = Infinity;
  /** During a step: its frames, written as one buffer at its end (one TLS write, not one per event). */
  let batch: Buffer[] | undefined;
  // An in-process watcher in JSON gets each event as a value (cloned by the response), no bytes.
  const sink = !asTable && !asProtobuf ? inProcessResponse(res) : undefined;
  // Corked around the write so the bytes reach the socket now, not in a nextTick per watcher: a
  // commit's event goes out to every watcher before the writer's own response does.
  const write = (buf: Buffer) => {
    if (closed) return;
    spent += buf.length;
    const bytes = asProtobuf ? buf : spelledJson(res, buf);
    if (batch) return void batch.push(bytes);
    res.cork?.();
    if (!res.write(bytes)) blocked = true;
    res.uncork?.();
  };
  const send = (type: EventType, item: { object: SvcObject; json: Buffer }) => {
    if (sink) {
      spent += item.json.length;
      if (!closed) sink.sendEventObject(type, item.object);
    } else write(encode(type, item));
  };
  // A Table watch sends each object as a one-row Table; only the first carries the column definitions.
  let columnsSent = false;
  const encode = (type: EventType, item: { object: SvcObject; json: Buffer }): Buffer => {
    if (asProtobuf) return protobufWatchFrame(s.def, type, item.object, s.spelling);
    if (!asTable) return frame(type, item.json);
    const table = objectTable(s.def, item.object, { includeObject, now: services.now(), noHeaders: columnsSent, apiVersion: tableApiVersion(s.output.params) });
    columnsSent = true;
    return Buffer.from(`${JSON.stringify({ type, object: table })}\n`);
  };
  const sendInitial = (item: { key: string; object: SvcObject; json: Buffer }) => {
    if (inScope(item.key) && matches(item.object)) send('ADDED', item);
  };
  const sendChange = (c: Change) => {
    if (c.revision <= lastSent) return;
    lastSent = c.revision;
    if (!inScope(c.key)) return;
    const now = matches(c.type === 'DELETED' ? undefined : c.object);
    const before = c.type === 'ADDED' ? false : matches(c.type === 'DELETED' ? c.object : c.prevObject);
    if (c.type === 'DELETED') {
      if (before) send('DELETED', c);
    } else if (now && (before || c.type === 'ADDED')) send(c.type, c);
    else if (now) send('ADDED', c);
    else if (before) send('DELETED', c);
  };
  const canWrite = () => !blocked && !closed && spent < budget;
  const onSnapshotEnd = initialEvents === true ? () => sendBookmark(true) : undefined;
  /** Sends about `bytes` of what is owed, corked into one write; the scheduler calls it in turn. */
  const step = (bytes: number): StepResult => {
    if (closed) return 'done';
    spent = 0;
    budget = bytes;
    batch = [];
    let frames: Buffer[];
    try {
      backlog.drain(canWrite, sendInitial, sendChange, onSnapshotEnd);
    } finally {
      budget = Infinity;
      frames = batch;
      batch = undefined;
    }
    if (frames.length > 0 && !closed) {
      res.cork?.();
      if (!res.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames))) blocked = true;
      res.uncork?.();
    }
    if (closed) return 'done';
    if (blocked) {
      (res as unknown as NodeJS.EventEmitter).once('drain', onDrain);
      return 'blocked';
    }
    return backlog.drained ? 'done' : 'more';
  };
  const stream: FairStream = { step, lane: 'watch' };
  const onDrain = () => {
    blocked = false;
    if (!closed) fairStreams.schedule(stream);
  };
  // Behind the cache's event window, what it still has to send is held only by this watch. A watch
  // that started before the window (served by a direct store watch) is held to the count instead.
  // The oldest change it still owes, not the last it sent: a watcher of a quiet namespace is not
  // handed other namespaces' changes, so what it sent last can be old without it being behind.
  const cache = store.cache && after >= store.cache.oldestRevision() ? store.cache : undefined;
  const tooFarBehind = () => {
    if (!cache) return backlog.queuedChanges > MAX_QUEUED_CHANGES;
    const owed = backlog.headChange;
    return owed !== undefined && owed.revision <= cache.oldestRevision();
  };

  const deliver = (changes: Change[]) => {
    if (closed) return;
    backlog.push(changes);
    // Idle: a live batch goes out now (in the commit's pass); more than a slice waits its turn.
    if (!blocked && !fairStreams.isScheduled(stream) && step(SLICE_BYTES) === 'more') fairStreams.schedule(stream);
    if (!backlog.empty && tooFarBehind()) {
      services.logger.debug({ resource: s.def.plural, lastSent, queued: backlog.queuedChanges }, 'watch too far behind; ending it');
      // One served from storage ends with 410: resumed from where it stopped, it would ask for the
      // same long replay again, decoded for it alone, and again be ended (seen: one informer's
      // watch reopened every second from one revision, replaying 46,000 changes each time, held a
      // 30,000-pod cluster's API server). Its client lists again, as after the established
      // server's "too old resource version".
      if (cache) finish(false);
      else fail(gone(`too old resource version: ${lastSent} (the watch fell more than ${MAX_QUEUED_CHANGES} changes behind; list again)`));
    }
  };

  const fail = (err: unknown) => {
    const status: Status = store.mapStorageError(err).status;
    if (sink) {
      if (!closed) sink.sendEvent('ERROR', status);
    } else write(asProtobuf ? protobufWatchFrame(s.def, 'ERROR', status, s.spelling) : Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`));
    finish();
  };

  let handle: { close(): void } | undefined;
  let cacheHandle: CacheWatchHandle | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let lifeTimer: NodeJS.Timeout | undefined;
  let unregister: () => void = () => {};
  const apiVersion = s.def.group ? `${s.def.group}/${s.def.version}` : s.def.version;
  const sendBookmark = (initialEventsEnd = false) => {
    // Only a revision everything up to which has been sent: none while the initial state streams,
    // and none before the bookmark that ends it (sent from onSnapshotEnd, once the end is reported).
    if (!backlog.snapshotEnded) return;
    // The cache's revision only for a watcher it serves from memory with nothing queued: one served
    // by a direct store watch (resumed from before the cache's window, as after a restart) is still
    // replaying history below it, and a client resuming from that bookmark would skip the rest.
    const revision = initialEventsEnd ? after : store.cache && backlog.empty && cacheHandle?.caughtUp() ? Math.max(store.cache.revision, lastSent) : lastSent;
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata['annotations'] = INITIAL_EVENTS_END;
    const object = asTable
      ? { kind: 'Table', apiVersion: tableApiVersion(s.output.params), metadata, columnDefinitions: [], rows: [] }
      : { kind: s.def.kind, apiVersion, metadata };
    if (sink) {
      if (!closed) sink.sendEvent('BOOKMARK', object);
    } else write(asProtobuf ? protobufWatchFrame(s.def, 'BOOKMARK', object, s.spelling) : Buffer.from(`${JSON.stringify({ type: 'BOOKMARK', object })}\n`));
  };
  function finish(finalBookmark = true) {
    if (closed) return;
    if (finalBookmark && bookmarks && handle) sendBookmark();
    closed = true;
    backlog.clear();
    handle?.close();
    clearInterval(bookmarkTimer);
    clearTimeout(lifeTimer);
    unregister();
    if (!res.writableEnded) res.end();
  }

  try {
    if (store.cache) {
      handle = cacheHandle = store.cache.watch(
        after,
        (events: CacheEvent[]) => deliver(events),
        (err) => fail(err),
        nameKey ?? scope,
      );
    } else {
      handle = store.kv.watch(store.keys.resourcePrefix, after, {
        onEvents: (events: KVEvent[]) => deliver(events.map((e) => toChange(e, store))),
        onError: (err) => fail(err),
      });
    }
  } catch (err) {
    fail(err);
    return;
  }
  unregister = services.watches.add({ resource: s.def.plural, def: s.def, end: finish });
  lifeTimer = setTimeout(finish, lifetimeMs);
  // A periodic bookmark waits while the client is not reading (it would only add to the backlog).
  if (bookmarks) bookmarkTimer = setInterval(() => !blocked && sendBookmark(), BOOKMARK_INTERVAL_MS);
  const end = () => finish();
  onRequestClose(s.req, end);
  res.on('close', end);
  fairStreams.schedule(stream);
}

/** A storage event decoded by the store (not the raw stored object: a custom resource's apiVersion is the watched version's). */
function toChange(e: KVEvent, store: ResourceStore): Change {
  const type: EventType = e.type === 'delete' ? 'DELETED' : e.prevModRevision === 0 ? 'ADDED' : 'MODIFIED';
  // Frozen like the cache's objects: an in-process watcher is handed the object itself (without
  // it, sendEventObject refused every change, and in-process watches of a resource with no watch
  // cache got nothing).
  const object = deepFreeze(store.decodeStored(e.value, e.modRevision));
  const json = Buffer.from(stringifyJson(object));
  const change: Change = { type, key: e.key, revision: e.modRevision, object, json };
  if (e.prevValue) change.prevObject = store.decodeStored(e.prevValue, e.prevModRevision);
  return change;
}
