// The JS directory volume keeps the Rust dir volume's rules: `..` never leaves the
// root, symbolic links are listed but never followed (wherever they point), failed
// writes keep the old content, and error messages show no host path.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

import { DirVolume, FilestoreError } from '../src/index.js';
import { filestore, tempDir } from './harness.js';

function tree() {
  const top = tempDir('filestore-dir-');
  const root = path.join(top, 'root');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(top, 'root_evil'));
  fs.mkdirSync(path.join(top, 'outside'));
  fs.writeFileSync(path.join(root, 'a.txt'), 'inside\n');
  fs.writeFileSync(path.join(top, 'root_evil', 'secret'), 'evil\n');
  fs.writeFileSync(path.join(top, 'outside', 'secret'), 'outside\n');
  fs.symlinkSync('../outside/secret', path.join(root, 'link'));
  fs.symlinkSync('/etc/passwd', path.join(root, 'passwd'));
  fs.symlinkSync('../outside', path.join(root, 'linkdir'));
  fs.symlinkSync('/proc/self/root', path.join(root, 'magic'));
  fs.symlinkSync('loop_b', path.join(root, 'loop_a'));
  fs.symlinkSync('loop_a', path.join(root, 'loop_b'));
  fs.symlinkSync('../outside/new', path.join(root, 'dangling'));
  return { top, root };
}

function snapshot(dir) {
  const out = {};
  for (const name of fs.readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    out[name] = st.isFile() ? fs.readFileSync(p, 'utf8') : st.isSymbolicLink() ? `-> ${fs.readlinkSync(p)}` : 'dir';
  }
  return out;
}

test('hostile paths are refused through the component, nothing outside changes', async () => {
  const fsx = await filestore();
  const { top, root } = tree();
  const before = [snapshot(path.join(top, 'outside')), snapshot(path.join(top, 'root_evil'))];
  const s = fsx.session({ mounts: [{ point: '/root', volume: new DirVolume(root) }] });
  const refuse = [
    ['filestore_read', { path: '/root/../root_evil/secret' }, 'not-found'],
    ['filestore_write', { path: '/root_evil/new.txt', content: 'x' }, 'read-only'],
    ['filestore_read', { path: '/root/link' }, 'invalid-path'],
    ['filestore_read', { path: '/root/passwd' }, 'invalid-path'],
    ['filestore_read', { path: '/root/linkdir/secret' }, 'invalid-path'],
    ['filestore_write', { path: '/root/dangling', content: 'x' }, 'invalid-path'],
    ['filestore_write', { path: '/root/linkdir/new.txt', content: 'x' }, 'invalid-path'],
    ['filestore_read', { path: '/root/loop_a' }, 'invalid-path'],
    ['filestore_read', { path: '/root/magic/etc/hostname' }, 'invalid-path'],
    ['filestore_read', { path: '/root/../../etc/passwd' }, 'invalid-path'],
    ['filestore_ls', { path: '/root/linkdir' }, 'invalid-path'],
    ['filestore_move', { source: '/root/a.txt', destination: '/root/link', overwrite: true }, 'invalid-path'],
    ['filestore_move', { source: '/root/a.txt', destination: '/root/linkdir/a.txt' }, 'invalid-path'],
  ];
  for (const [tool, args, kind] of refuse) {
    assert.throws(
      () => s.call(tool, args),
      (e) => e instanceof FilestoreError && e.kind === kind && !e.message.includes(top),
      `${tool} ${JSON.stringify(args)}`,
    );
  }
  // Listed, never followed: nothing beyond a link appears.
  const glob = s.call('filestore_glob', { pattern: '**', path: '/root' }).json.files.map((f) => f.path);
  assert.deepEqual(glob, ['/root/a.txt', '/root/dangling', '/root/link', '/root/linkdir', '/root/loop_a', '/root/loop_b', '/root/magic', '/root/passwd']);
  assert.deepEqual(s.call('filestore_grep', { pattern: 'outside|root:' , path: '/root' }).json.files ?? [], []);
  // Deleting a link removes the link, never its target.
  s.call('filestore_delete', { path: '/root/linkdir', recursive: true });
  assert.deepEqual([snapshot(path.join(top, 'outside')), snapshot(path.join(top, 'root_evil'))], before);
  assert.ok(!fs.existsSync(path.join(root, 'linkdir')));
  s.close();
  fs.rmSync(top, { recursive: true, force: true });
});

test('a write whose final rename fails keeps the old content and leaves no temporary file', async (t) => {
  const fsx = await filestore();
  const { top, root } = tree();
  const file = path.join(root, 'a.txt');
  // An immutable file cannot be replaced, even by root: the write gets as far as its
  // temporary file and fails at the rename. Without CAP_LINUX_IMMUTABLE or on a file
  // system without the attribute there is no honest way to fail only the rename.
  const chattr = spawnSync('chattr', ['+i', file]);
  if (chattr.status !== 0) {
    t.skip(`chattr +i is not available here: ${chattr.stderr}`);
    fs.rmSync(top, { recursive: true, force: true });
    return;
  }
  const s = fsx.session({ mounts: [{ point: '/w', volume: new DirVolume(root) }] });
  try {
    for (const [tool, args] of [
      ['filestore_write', { path: '/w/a.txt', content: 'new' }],
      ['filestore_edit', { path: '/w/a.txt', old_string: 'inside', new_string: 'outside' }],
    ]) {
      assert.throws(
        () => s.call(tool, args),
        (e) => e.kind === 'backend' && e.message === '/w/a.txt: permission denied',
        tool,
      );
      assert.equal(fs.readFileSync(file, 'utf8'), 'inside\n', tool);
      assert.deepEqual(fs.readdirSync(root).filter((n) => n.includes('.filestore-tmp-')), [], tool);
    }
  } finally {
    spawnSync('chattr', ['-i', file]);
  }
  s.call('filestore_write', { path: '/w/a.txt', content: 'replaced\n' });
  assert.equal(fs.readFileSync(file, 'utf8'), 'replaced\n');
  s.close();
  fs.rmSync(top, { recursive: true, force: true });
});

test('the volume itself refuses unnormalised paths (defence in depth)', () => {
  const { top, root } = tree();
  const v = new DirVolume(root);
  for (const p of ['/../outside/secret', '/sub/../../outside/secret', 'a.txt', '/a\0b', '/a\\b', '//a.txt', '/a.txt/']) {
    assert.throws(() => v.read(p, 0, 100), (e) => e.kind === 'invalid-path', p);
  }
  assert.throws(() => new DirVolume(path.join(top, 'missing')), (e) => e.kind === 'not-found');
  assert.throws(() => new DirVolume(path.join(root, 'a.txt')), (e) => e.kind === 'not-a-directory');
  fs.rmSync(top, { recursive: true, force: true });
});
