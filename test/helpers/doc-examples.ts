/**
 * The runnable examples of a docs/ page written as "a ```sh block, then the block it prints":
 * every ```sh block with the plain (or ```json) block that directly follows it, under the nearest
 * `###` (or `##`) title. The first block of such a page sets API and CA for the rest.
 */
export interface DocExample {
  title: string;
  script: string;
  /** The output block right after the script, if any. */
  output?: string;
}

export function docExamples(markdown: string): DocExample[] {
  const out: DocExample[] = [];
  const re = /^(#{2,3} .*)$|^```sh\n([\s\S]*?)^```\n(?:\n```(?:json)?\n([\s\S]*?)^```\n)?/gm;
  let title = '';
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    if (m[1]) title = m[1].replace(/^#+ /, '');
    else out.push({ title, script: m[2]!, ...(m[3] !== undefined ? { output: m[3] } : {}) });
  }
  return out;
}
