// node scripts/transpile.mjs COMPONENT.wasm OUT_DIR [JCO]
//
// Transpiles the filestore component into the ES module + core wasm files that
// `Filestore.load(OUT_DIR)` loads: `jco transpile --instantiation sync` (the host
// provides every import and instantiates once per session), plus a package.json
// marking the output as ES modules. JCO defaults to the jco this package installs.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [component, out, jco] = process.argv.slice(2);
if (!component || !out) {
  console.error('usage: node scripts/transpile.mjs COMPONENT.wasm OUT_DIR [JCO_BIN]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const bin = jco ?? join(here, '..', 'node_modules', '.bin', 'jco');
execFileSync(bin, ['transpile', component, '--instantiation', 'sync', '--name', 'filestore', '--quiet', '-o', out], {
  stdio: 'inherit',
});
writeFileSync(join(out, 'package.json'), '{"type": "module"}\n');
