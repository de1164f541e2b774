/**
 * The Protobuf section of docs/benchmarks.md: JSON vs Protobuf encode and decode of one pod list in
 * the bench process, and the same list served by the apiserver as JSON, Protobuf and Table.
 */
import type { LoadResult } from './load.js';
import type { CodecFigures, ServedListFigures } from './measure-protobuf.js';

export interface ProtobufFigures {
  codec: CodecFigures;
  served: ServedListFigures;
  /** Concurrency of the served-list step, seconds per representation and round, and rounds. */
  concurrency: number;
  durationMs: number;
  rounds: number;
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => `${x.toFixed(1)} ms`;
const kib = (b: number) => `${n0(b / 1024)} KiB`;
const ratio = (json: number, pb: number) => `${(json / pb).toFixed(2)}×`;
const served = (r: LoadResult, items: number) =>
  `${n0(r.perSecond)}/s (p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}, ${kib(r.requests ? r.bytes / r.requests : 0)} per list of ${items})`;

export const PROTOBUF_HEADING = '## Protobuf';

/** How a section measured alone (`--only=protobuf`) was produced. */
export interface ProtobufRun {
  command: string;
  date: Date;
  loadAtStart: number;
}

export function renderProtobufSection(p: ProtobufFigures, run?: ProtobufRun): string {
  const c = p.codec;
  const faster = (json: number, pb: number) => (pb < json ? 'Protobuf' : 'JSON');
  const rows = [
    ['Bytes', kib(c.jsonBytes), kib(c.protobufBytes), ratio(c.jsonBytes, c.protobufBytes), faster(c.jsonBytes, c.protobufBytes)],
    ['Encode', ms(c.jsonEncodeMs), ms(c.protobufEncodeMs), ratio(c.jsonEncodeMs, c.protobufEncodeMs), faster(c.jsonEncodeMs, c.protobufEncodeMs)],
    ['Decode', ms(c.jsonDecodeMs), ms(c.protobufDecodeMs), ratio(c.jsonDecodeMs, c.protobufDecodeMs), faster(c.jsonDecodeMs, c.protobufDecodeMs)],
  ];
  const s = p.served;
  const g = c.gcMsPerRun;
  const why: string[] = [];
  if (c.protobufEncodeMs >= c.jsonEncodeMs) {
    why.push(
      'Encode: `JSON.stringify` is V8\'s serializer in C++, with a fast path for plain objects; the Protobuf encoder is JavaScript generated per message. A CPU profile of encoding this list (`node --cpu-prof`, summarized by bench/profile-summary.ts) has about two fifths in the generated per-message encoders (property reads, type checks, tags), about a third writing strings and FieldsV1 JSON text (a JS loop per short ASCII string, one native `utf8Write` per long one), the rest varints, nested lengths and time fields. The server does not pay this per request: a cached (frozen) object is encoded once and its bytes kept, so serving a list copies bytes, as the served figures below show.',
    );
  }
  if (c.protobufDecodeMs >= c.jsonDecodeMs) {
    why.push(
      `Decode: garbage collection took ${ms(g.protobufDecode)} of each Protobuf decode against ${ms(g.jsonDecode)} for \`JSON.parse\`: \`JSON.parse\` allocates the result of a large input (100 KiB or more) straight in V8's old generation, while objects built by JavaScript start in the young generation and are copied by scavenges as the list grows.`,
    );
  }
  const gcLine = `Garbage collection inside those runs (V8's GCProfiler, per run, included in the times): encode JSON ${ms(g.jsonEncode)}, Protobuf ${ms(g.protobufEncode)}; decode JSON ${ms(g.jsonDecode)}, Protobuf ${ms(g.protobufDecode)}.`;
  const measured = run
    ? `Measured alone by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in bench/measure-protobuf.ts.\n\n`
    : '';
  return `${PROTOBUF_HEADING}

${measured}A list of ${n0(c.items)} running pods (labels, owner, managed fields, probes, resources, a volume,
status with conditions and a container status), encoded and decoded in the bench process (the four
steps take turns in ${c.blocks} blocks of 2 warm-up and ${c.runs / c.blocks} timed runs each; the median of ${c.runs} runs is
reported; objects are not cached between runs; JSON is V8's native \`JSON.stringify\`/\`JSON.parse\`,
Protobuf the server's compiled codec, src/codec/protobuf/):

| ${n0(c.items)}-pod list | JSON | Protobuf | JSON ÷ Protobuf | Smaller/faster |
|---|---:|---:|---:|---|
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}

${gcLine}
${why.length ? `\nWhere JSON is faster above, why: ${why.join(' ')}\n` : ''}
The same ${n0(c.items)} pods served by the apiserver (GET of the whole list, ${p.concurrency} requests in flight; ${p.rounds} rounds of
${p.durationMs / 1000} s per representation in turn after 1 s of warm-up each, the median round reported):

- JSON: ${served(s.json, c.items)}
- Protobuf: ${served(s.protobuf, c.items)}
${s.table ? `- Table: ${served(s.table, c.items)}\n` : ''}`;
}

/** Replaces the Protobuf section of docs/benchmarks.md (for `--only=protobuf`), or appends it. */
export function spliceProtobufSection(doc: string, section: string): string {
  const start = doc.indexOf(`\n${PROTOBUF_HEADING}\n`);
  if (start < 0) return `${doc.trimEnd()}\n\n${section}`;
  const next = doc.indexOf('\n## ', start + PROTOBUF_HEADING.length + 2);
  return `${doc.slice(0, start + 1)}${section}${next >= 0 ? `\n${doc.slice(next + 1)}` : ''}`;
}
