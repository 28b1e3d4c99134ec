// node scripts/pack.mjs COMPONENT.wasm OUT_DIR [JCO_BIN]
//
// Builds the npm package: stages this package's published files (package.json,
// README.md, src/, examples/) with the repository's LICENSE in a temporary
// directory, transpiles COMPONENT.wasm into its `gen/` (as scripts/transpile.mjs does),
// and runs `npm pack` there, writing the tarball into OUT_DIR. The package then
// needs nothing at run time: `Filestore.load()` loads the bundled `gen/`, and jco is
// only a development dependency. Staging keeps the checkout clean (no `gen/` written
// into it) and the tarball free of anything `files` does not name.
// Prints the tarball's path.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [component, out, jco] = process.argv.slice(2);
if (!component || !out) {
  console.error('usage: node scripts/pack.mjs COMPONENT.wasm OUT_DIR [JCO_BIN]');
  process.exit(2);
}
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const stage = mkdtempSync(join(tmpdir(), 'filestore-npm-'));
try {
  for (const entry of ['package.json', 'README.md', 'src', 'examples']) {
    cpSync(join(pkg, entry), join(stage, entry), { recursive: true });
  }
  cpSync(join(pkg, '..', '..', 'LICENSE'), join(stage, 'LICENSE'));
  const transpile = join(pkg, 'scripts', 'transpile.mjs');
  const args = [transpile, resolve(component), join(stage, 'gen')];
  execFileSync(process.execPath, jco ? [...args, resolve(jco)] : args, { stdio: 'inherit' });
  mkdirSync(out, { recursive: true });
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', resolve(out)], {
    cwd: stage,
    encoding: 'utf8',
  }).trim();
  console.log(join(resolve(out), name.split('\n').pop()));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
