// Shared by the tests: the transpiled component (FILESTORE_JS_GEN, written by
// tests/integration/node_host.rs), the shared contract suite and its fixtures.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Filestore, MemoryVolume, DirVolume, ToolHost, ToolError } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = path.resolve(here, '..', '..', '..');

/** The transpiled component directory the Rust test made (or FILESTORE_JS_GEN). */
export function genDir() {
  const dir = process.env.FILESTORE_JS_GEN;
  if (!dir) throw new Error('FILESTORE_JS_GEN is not set: run these tests through `cargo test -p filestore --test integration node_host`, or transpile the component yourself (docs/embedding.md)');
  return dir;
}

let loaded;
/** The component, loaded once per test process. */
export function filestore() {
  loaded ??= Filestore.load(genDir());
  return loaded;
}

/** The shared suite. */
export const suite = JSON.parse(fs.readFileSync(process.env.FILESTORE_SUITE ?? path.join(repoRoot, 'tests/contract/suite.json'), 'utf8'));

/** A fixture file's bytes (see the suite's `about`); `undefined` for a link. */
export function content(spec) {
  if (typeof spec === 'string') return Buffer.from(spec, 'utf8');
  if ('hex' in spec) return Buffer.from(spec.hex, 'hex');
  if ('lines' in spec) {
    let s = '';
    for (let i = 1; i <= spec.count; i++) s += `${spec.lines}${i}\n`;
    return Buffer.from(s, 'utf8');
  }
  if ('repeat' in spec) return Buffer.from(spec.repeat.repeat(spec.times) + (spec.then ?? ''), 'utf8');
  if ('symlink' in spec) return undefined;
  throw new Error(`unknown fixture content ${JSON.stringify(spec)}`);
}

/** A fixture in a memory volume. */
export function memoryFixture(files) {
  const v = new MemoryVolume();
  for (const [p, spec] of Object.entries(files)) {
    const b = content(spec);
    if (b === undefined) throw new Error(`${p}: links need a dir backend`);
    v.insert(p, b);
  }
  return v;
}

const byBytes = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A fixture materialised under `root` with the suite's modification times. */
export function materialise(files, root, base) {
  const paths = Object.keys(files).sort(byBytes);
  const dirs = new Set([root]);
  for (const p of paths) {
    const host = path.join(root, p.slice(1));
    fs.mkdirSync(path.dirname(host), { recursive: true });
    for (let d = path.dirname(host); d.startsWith(root); d = path.dirname(d)) {
      dirs.add(d);
      if (d === root) break;
    }
    const b = content(files[p]);
    if (b === undefined) fs.symlinkSync(files[p].symlink, host);
    else fs.writeFileSync(host, b);
  }
  let n = 0;
  for (const p of paths) {
    if (content(files[p]) === undefined) continue;
    n += 1;
    const t = (base + 1000 * n) / 1000;
    fs.utimesSync(path.join(root, p.slice(1)), t, t);
  }
  for (const d of dirs) fs.utimesSync(d, base / 1000, base / 1000);
}

/** A fresh temporary directory. */
export function tempDir(prefix = 'filestore-node-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The suite's tool handlers (`tool_types` in the suite), as the Rust test registers them. */
export function suiteTools() {
  return new ToolHost({
    env: {},
    handlers: {
      echo: (req) => ({
        tool: req.toolName,
        arguments: req.arguments,
        positional: req.positional,
        statement: req.statement ?? null,
        source_type: req.source?.type ?? null,
        endpoint: req.source?.fields.endpoint ?? null,
      }),
      fail: () => {
        throw new ToolError('not-found', 'no such row');
      },
      bulk: () => ({
        rows: Array.from({ length: 200 }, (_, k) => ({ i: k + 1, text: `row ${k + 1} of the bulky result` })),
      }),
    },
  });
}

/** The mounts of a suite case on one backend (temporary directories under `tmp`). */
export function caseMounts(kase, backend, tmp) {
  return kase.mounts.map((m, i) => {
    const files = suite.fixtures[m.fixture];
    let volume;
    if (backend === 'memory' || m.memory) {
      volume = memoryFixture(files);
    } else {
      const root = path.join(tmp, `mount-${i}`);
      fs.mkdirSync(root);
      materialise(files, root, suite.mtime_base_ms);
      volume = new DirVolume(root, { readOnly: Boolean(m.read_only) });
    }
    return { point: m.point, volume, priority: m.priority ?? 0, readOnly: Boolean(m.read_only) };
  });
}

/** Replaces modification times the suite did not set by `"<recent>"`, and the shell's
 * `duration_ms` by `"<duration>"` (as contract.rs). */
export function normalise(v) {
  if (Array.isArray(v)) return v.map(normalise);
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'modified_ms' && typeof x === 'number' && x >= suite.recent_ms) out[k] = '<recent>';
      else if (k === 'duration_ms' && typeof x === 'number') out[k] = '<duration>';
      else out[k] = normalise(x);
    }
    return out;
  }
  return v;
}
