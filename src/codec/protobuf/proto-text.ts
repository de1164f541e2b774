/**
 * `.proto` text of each wire package, generated from the field-number tables. The committed files in
 * proto/ are this output (`npm run gen:proto`); the server parses the same text at start.
 */
import { SCALARS, type WireModel } from './model.js';

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
        const label = f.map ? `map<string, ${type}>` : `${f.repeated ? 'repeated' : 'optional'} ${type}`;
        body.push(`  ${label} ${f.name} = ${f.number};${f.inline ? ' // inline: fields appear in the parent JSON object' : ''}`);
      }
      body.push('}', '');
    }
    const head = [
      '// Generated from src/api/kinds/proto/ by `npm run gen:proto`. Do not edit.',
      '',
      "syntax = 'proto2';",
      '',
      `package ${pkg.package};`,
      '',
      ...[...imports].sort().map((i) => `import "${i}";`),
      ...(imports.size ? [''] : []),
    ];
    return { path: pkg.file, text: [...head, ...body].join('\n') };
  });
}
