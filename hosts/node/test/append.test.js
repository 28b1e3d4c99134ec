// The WIT `volume.append` (0.10.0) in the Node host: the shell's `>>` reaches each
// backend's own append — in place on a directory (the same inode, as bash's), never
// through a link, all or nothing — or, for a backend without one, a read and one
// whole write; a misbehaving append is a typed error of that call.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { DirVolume, MemoryVolume } from '../src/index.js';
import { filestore, tempDir } from './harness.js';

const LOOP = 'for i in $(seq 50); do echo $i >> log; done; echo tail >> log; wc -l < log; tail -n 2 log';
const WANT = `${Array.from({ length: 50 }, (_, i) => `${i + 1}\n`).join('')}tail\n`;

test('>> appends in place on a directory volume, as bash does', async () => {
  const fsx = await filestore();
  const root = tempDir('filestore-append-');
  fs.writeFileSync(path.join(root, 'log'), '');
  const ino = fs.statSync(path.join(root, 'log')).ino;
  const s = fsx.session({ mounts: [{ point: '/w', volume: new DirVolume(root) }] });
  s.enableShell(true);
  const out = s.call('filestore_execute', { command: LOOP, cwd: '/w' }).json;
  assert.equal(out.stdout, '51\n50\ntail\n');
  assert.equal(fs.readFileSync(path.join(root, 'log'), 'utf8'), WANT);
  assert.equal(fs.statSync(path.join(root, 'log')).ino, ino, 'the same file, appended to');
  // A link, or a link as parent, is refused as a write refuses it; nothing changes.
  fs.mkdirSync(path.join(root, 'real'));
  fs.writeFileSync(path.join(root, 'real', 'f'), 'kept\n');
  fs.symlinkSync('real/f', path.join(root, 'lf'));
  fs.symlinkSync('real', path.join(root, 'ld'));
  const v = new DirVolume(root);
  for (const p of ['/lf', '/ld/f', '/ld/new']) {
    let appendErr;
    let writeErr;
    try { v.append(p, Buffer.from('x')); } catch (e) { appendErr = e; }
    try { v.write(p, Buffer.from('x'), {}); } catch (e) { writeErr = e; }
    assert.equal(appendErr?.kind, 'invalid-path', p);
    assert.deepEqual([appendErr.kind, appendErr.message], [writeErr.kind, writeErr.message], p);
  }
  const sh = s.call('filestore_execute', { command: 'echo x >> lf; echo $?; echo y >> ld/f; echo $?', cwd: '/w' }).json;
  assert.equal(sh.stdout, '1\n1\n');
  assert.equal(fs.readFileSync(path.join(root, 'real', 'f'), 'utf8'), 'kept\n');
  assert.ok(!fs.existsSync(path.join(root, 'real', 'new')));
  // A second hard link is never changed in place: the other name keeps its content.
  fs.writeFileSync(path.join(root, 'outside.txt'), 'outside\n');
  fs.linkSync(path.join(root, 'outside.txt'), path.join(root, 'hard.txt'));
  v.append('/hard.txt', Buffer.from('agent\n'));
  assert.equal(fs.readFileSync(path.join(root, 'hard.txt'), 'utf8'), 'outside\nagent\n');
  assert.equal(fs.readFileSync(path.join(root, 'outside.txt'), 'utf8'), 'outside\n');
  s.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('a memory volume appends; a backend without append is read and written whole', async () => {
  const fsx = await filestore();
  const mem = new MemoryVolume({});
  let writes = 0;
  const plain = new MemoryVolume({});
  // Only the required methods: no `append`, so the host falls back to read + write.
  const bare = {
    stat: (p) => plain.stat(p),
    list: (p) => plain.list(p),
    walk: (p, n) => plain.walk(p, n),
    read: (p, o, n) => plain.read(p, o, n),
    write: (p, c, o) => { writes += 1; return plain.write(p, c, o); },
    delete: (p, r) => plain.delete(p, r),
    rename: (f, t, o) => plain.rename(f, t, o),
  };
  const s = fsx.session({ mounts: [{ point: '/m', volume: mem }, { point: '/b', volume: bare }] });
  s.enableShell(true);
  for (const dir of ['/m', '/b']) {
    const out = s.call('filestore_execute', { command: LOOP, cwd: dir }).json;
    assert.equal(out.stdout, '51\n50\ntail\n', dir);
  }
  assert.equal(Buffer.from(mem.read('/log', 0, 1 << 20)).toString('utf8'), WANT);
  assert.equal(Buffer.from(plain.read('/log', 0, 1 << 20)).toString('utf8'), WANT);
  assert.equal(writes, 51, 'one whole write per append');
  const ro = s.call('filestore_execute', { command: 'echo x >> /nowhere/f; echo $?', cwd: '/m' }).json;
  assert.equal(ro.stdout, '1\n');
  s.close();
});

test('a misbehaving append is a backend error of that call, the session goes on', async () => {
  const fsx = await filestore();
  const m = new MemoryVolume({ '/a.txt': 'alpha\n' });
  const shrinks = new Proxy(m, {
    get(target, prop) {
      if (prop === 'append') return (p, c) => ({ ...target.append(p, c), size: 1 });
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const throws = new Proxy(m, {
    get(target, prop) {
      if (prop === 'append') return () => { throw new TypeError('append exploded'); };
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const s = fsx.session({ mounts: [{ point: '/s', volume: shrinks }, { point: '/t', volume: throws }] });
  s.enableShell(true);
  const a = s.call('filestore_execute', { command: 'echo more >> /s/a.txt; echo $?' }).json;
  assert.equal(a.stdout, '1\n');
  assert.match(a.stderr, /reported a file of 1 bytes after appending 5 bytes/);
  const b = s.call('filestore_execute', { command: 'echo more >> /t/a.txt; echo $?' }).json;
  assert.equal(b.stdout, '1\n');
  assert.match(b.stderr, /the volume's append threw TypeError: append exploded/);
  assert.equal(s.call('filestore_execute', { command: 'cat /t/a.txt' }).json.stdout, 'alpha\nmore\n');
  s.close();
});
