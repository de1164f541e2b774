/**
 * `.proto` text of each wire package, generated from the field-number tables. The committed files in
 * proto/ are this output (`npm run gen:proto`); the server parses the same text at start.
 *
 * proto3, because its presence rules are the established Go types': a plain scalar is implicit
 * presence (a zero is absent: a non-pointer `omitempty` field), an `optional` one explicit presence
 * (a zero sent is a value: a pointer, as protoc-gen-go itself makes it). The established files are
 * proto2 with every field `optional` and say nothing of this; the wire bytes are the same.
 */
import { SCALARS, type WireModel } from './model.js';

const NUMBERS = new Set(['int32', 'int64', 'bool', 'double']);

export interface ProtoFile {
  /** Path under proto/. */
  path: string;
  text: string;
}

export function generateProtoFiles(model: WireModel): ProtoFile[] {
  return model.packages.map((pkg) => {
    const imports = new Set<string>();
    const body: string[] = [];
    const own = [...model.messages.values()].filter((m) => m.pkg === pkg).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const msg of own) {
      const name = msg.name;
      body.push(`message ${name} {`);
      for (const f of [...msg.fields].sort((a, b) => a.number - b.number)) {
        let type = f.type;
        if (!SCALARS.has(type)) {
          const target = model.messages.get(type)!;
          if (target.pkg !== pkg) {
            imports.add(target.pkg.file);
            type = `${target.pkg.package}.${type}`;
          }
        }
        // proto3 presence is the Go field's: `optional` where a zero sent is a value (a pointer), plain
        // where it is absent. Repeated numbers are written one per tag (unpacked), as Go clients do.
        const label = f.map ? `map<string, ${type}>` : f.repeated ? `repeated ${type}` : f.optional ? `optional ${type}` : type;
        const packed = f.repeated && NUMBERS.has(f.type) ? ' [packed = false]' : '';
        body.push(`  ${label} ${f.name} = ${f.number}${packed};${f.inline ? ' // inline: fields appear in the parent JSON object' : ''}`);
      }
      body.push('}', '');
    }
    const head = [
      '// Generated from src/api/kinds/proto/ by `npm run gen:proto`. Do not edit.',
      '',
      "syntax = 'proto3';",
      '',
      `package ${pkg.package};`,
      '',
      ...[...imports].sort().map((i) => `import "${i}";`),
      ...(imports.size ? [''] : []),
    ];
    return { path: pkg.file, text: [...head, ...body].join('\n') };
  });
}
