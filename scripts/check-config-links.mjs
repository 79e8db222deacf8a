// config.yaml is not Markdown, so the link check of the docs does not read it: every file of the checkout its
// comments point at (docs/*.md, README.md, with an optional #heading) must exist, and so must the heading.
import fs from 'node:fs';
import path from 'node:path';

const file = process.argv[2] ?? 'config.yaml';
const root = path.dirname(path.resolve(file));
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const broken = [];
fs.readFileSync(file, 'utf8')
  .split('\n')
  .forEach((line, index) => {
    for (const [, target, anchor] of line.matchAll(/\b((?:docs\/[\w.-]+|README)\.md)(?:#([\w-]+))?/g)) {
      const where = `${file}:${index + 1}: ${target}${anchor ? `#${anchor}` : ''}`;
      const full = path.join(root, target);
      if (!fs.existsSync(full)) broken.push(`${where}: no such file`);
      else if (
        anchor &&
        !fs
          .readFileSync(full, 'utf8')
          .split('\n')
          .some((l) => /^#+ /.test(l) && slug(l.replace(/^#+ /, '')) === anchor)
      )
        broken.push(`${where}: no such heading`);
    }
    if (/see the README\b/.test(line)) broken.push(`${file}:${index + 1}: name the file and heading (README.md#…), not "the README"`);
  });
for (const line of broken) process.stderr.write(`${line}\n`);
process.exit(broken.length > 0 ? 1 : 0);
