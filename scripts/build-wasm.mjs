// `npm run build:wasm`: compiles wasm/sha-crypt.ts (AssemblyScript) and writes the module, base64, into
// src/hashing/sha-crypt-wasm.generated.ts, so the core needs no compiler at run time. A test compiles it again and
// compares, so an edit of the source or an upgrade of the compiler fails until the file is made again.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const sourcePath = path.join(root, 'wasm', 'sha-crypt.ts');
export const modulePath = path.join(root, 'src', 'hashing', 'sha-crypt-wasm.generated.ts');

/** The compiled module's bytes. */
export async function compileShaCrypt() {
  const { default: asc } = await import('assemblyscript/asc');
  let binary;
  const { error, stderr } = await asc.main(['wasm/sha-crypt.ts', '--runtime', 'stub', '-O3', '--noAssert', '--outFile', 'sha-crypt.wasm'], {
    readFile: (name, baseDir) => {
      const file = path.resolve(root, baseDir, name);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    },
    writeFile: (name, contents) => {
      if (name.endsWith('.wasm')) binary = Buffer.from(contents);
    },
    listFiles: () => [],
  });
  if (error) throw new Error(`${error.message}\n${stderr.toString()}`);
  return binary;
}

/** The TypeScript file that carries the module. */
export function renderModule(binary) {
  const version = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'assemblyscript', 'package.json'), 'utf8')).version;
  return [
    `// Made by \`npm run build:wasm\` from wasm/sha-crypt.ts (AssemblyScript ${version}); do not edit.`,
    // As prettier lays it out, so that formatting the tree leaves the file as made.
    'export const SHA_CRYPT_WASM =',
    `  '${binary.toString('base64')}';`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(modulePath, renderModule(await compileShaCrypt()));
}
