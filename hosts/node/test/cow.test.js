// Copy-on-write mounts through the Node host (docs/cow.md): `cowMount` shows a host
// directory through an upper volume; an agent's writes, deletes (a shell `rm`
// included) and moves land in the upper volume, `filestore_diff` lists them, and the
// directory is never written. Mounts that would let changes reach the lower
// directory are refused.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { DirVolume, FilestoreError, MemoryVolume, cowMount } from '../src/index.js';
import { filestore, tempDir } from './harness.js';

function lowerTree() {
  const root = path.join(tempDir('filestore-cow-'), 'repo');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'a\n');
  fs.writeFileSync(path.join(root, 'src', 'b.txt'), 'b\n');
  fs.writeFileSync(path.join(root, 'README.md'), 'readme\n');
  return root;
}

function contents(dir) {
  const out = {};
  for (const name of fs.readdirSync(dir, { recursive: true }).sort()) {
    const p = path.join(dir, name);
    out[name] = fs.lstatSync(p).isFile() ? fs.readFileSync(p, 'utf8') : 'dir';
  }
  return out;
}

test('a cow mount takes every change in its upper volume and diffs it', async () => {
  const f = await filestore();
  const lower = lowerTree();
  const before = contents(lower);
  const upper = new MemoryVolume({});
  const s = f.session({ mounts: [cowMount('/repo', lower, upper)] });
  s.enableShell(true);
  s.call('filestore_write', { path: '/repo/src/a.txt', content: 'A\n' });
  s.call('filestore_delete', { path: '/repo/src/b.txt' });
  s.call('filestore_move', { source: '/repo/README.md', destination: '/repo/docs/README.md' });
  const rm = s.call('filestore_execute', { command: 'rm /repo/docs/README.md && echo new > /repo/new.txt' });
  assert.equal(rm.json.exit_code, 0, rm.text);
  assert.match(s.call('filestore_read', { path: '/repo/src/a.txt' }).text, /A/);
  assert.throws(() => s.call('filestore_read', { path: '/repo/src/b.txt' }), (e) => e.kind === 'not-found');
  const diff = s.call('filestore_diff', {}).json;
  const files = diff.files.map((x) => `${x.status} ${x.path}`).sort();
  assert.deepEqual(files, ['added /repo/new.txt', 'deleted /repo/README.md', 'deleted /repo/src/b.txt', 'modified /repo/src/a.txt']);
  assert.match(diff.patch, /^-a$/m);
  assert.match(diff.patch, /^\+A$/m);
  s.close();
  // The upper volume holds the changes (files under /files, the whiteouts beside
  // them); the directory is as it was.
  assert.equal(new TextDecoder().decode(upper.read('/files/src/a.txt', 0, 100)), 'A\n');
  assert.match(new TextDecoder().decode(upper.read('/cow-state.json', 0, 100000)), /"\/src\/b.txt"/);
  assert.deepEqual(contents(lower), before);
  // A new session over the same upper volume resumes the changes.
  const again = f.session({ mounts: [cowMount('/repo', lower, upper)] });
  assert.throws(() => again.call('filestore_read', { path: '/repo/src/b.txt' }), (e) => e.kind === 'not-found');
  again.close();
});

test('cow mounts whose changes could reach the lower directory are refused', async () => {
  const f = await filestore();
  const lower = lowerTree();
  const refused = (mounts, pattern) =>
    assert.throws(() => f.session({ mounts }), (e) => e instanceof FilestoreError && e.kind === 'invalid-argument' && pattern.test(e.message));
  refused([{ point: '/repo', volume: new DirVolume(lower), upper: new MemoryVolume({}) }], /lower directory .* is writable/);
  refused([{ ...cowMount('/repo', lower), readOnly: true }], /cannot be read-only/);
  fs.mkdirSync(path.join(lower, 'changes'));
  refused([cowMount('/repo', lower, new DirVolume(path.join(lower, 'changes')))], /inside one another/);
});
