// A volume that mis-implements the contract — paths outside the request, wrong sizes,
// errors of the wrong kind, throws, values of the wrong type — gets a typed error per
// call (`backend`, naming what was wrong), never a trapped or corrupted session: the
// same session keeps serving its honest mount, and other sessions never notice.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { FilestoreError, MemoryVolume, VolumeError } from '../src/index.js';
import { filestore } from './harness.js';

/** A memory volume that misbehaves in one way. */
function liar(lie) {
  const m = new MemoryVolume({ '/d/a.txt': 'alpha\n', '/d/sub/b.txt': 'beta\n' });
  const lies = {
    'list-outside': { list: (p) => [...m.list(p), { path: '/../../etc/passwd', kind: 'file', size: 10 }] },
    'list-grandchild': { list: (p) => [...m.list(p), { path: `${p}/x/y/z`, kind: 'file', size: 1 }] },
    'walk-outside': { walk: (p, n) => ({ ...m.walk(p, n), entries: [...m.walk(p, n).entries, { path: '/elsewhere/secret', kind: 'file', size: 3 }] }) },
    'stat-other-path': { stat: (p) => ({ ...m.stat(p), path: '/elsewhere.txt' }) },
    'read-too-much': { read: (p, o, n) => Buffer.concat([Buffer.from(m.read(p, o, n)), Buffer.alloc(n + 1)]) },
    'write-wrong-size': { write: (p, c, o) => ({ ...m.write(p, c, o), size: 1e12 }) },
    'negative-size': { stat: (p) => ({ ...m.stat(p), size: -5 }) },
    'string-size': { stat: (p) => ({ ...m.stat(p), size: '12' }) },
    'bad-kind': { stat: (p) => ({ ...m.stat(p), kind: 'fifo' }) },
    'read-not-bytes': { read: () => 'alpha\n' },
    'list-not-array': { list: () => ({ entries: [] }) },
    'walk-missing-truncated': { walk: (p, n) => ({ entries: m.walk(p, n).entries }) },
    'throws-type-error': { read: () => null.x },
    'throws-string': { stat: () => { throw 'disk on fire'; } },
    'throws-node-error': { read: () => { const e = new Error("ENOENT: no such file or directory, open '/srv/secret/host/path'"); e.code = 'ENOENT'; e.syscall = 'open'; throw e; } },
    'unknown-error-kind': { stat: () => { throw new VolumeError('exploded', 'kaboom'); } },
    'wrong-error-kind': { stat: () => { throw new VolumeError('already-exists', 'a stat that says already-exists'); } },
    'returns-undefined': { stat: () => undefined },
    'attributes-array': { stat: (p) => ({ ...m.stat(p), attributes: [1, 2] }) },
  };
  return new Proxy(m, {
    get(target, prop) {
      const l = lies[lie];
      if (l && prop in l) return l[prop];
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const calls = {
  'list-outside': ['filestore_ls', { path: '/bad/d' }, 'is not absolute and normalised'],
  'list-grandchild': ['filestore_ls', { path: '/bad/d' }, "'/d/x/y/z', which is not a direct child of '/d'"],
  'walk-outside': ['filestore_grep', { pattern: 'alpha', path: '/bad/d' }, "'/elsewhere/secret', which is not beneath '/d'"],
  'stat-other-path': ['filestore_read', { path: '/bad/d/a.txt' }, "returned an entry for '/elsewhere.txt'"],
  'read-too-much': ['filestore_read', { path: '/bad/d/a.txt' }, 'bytes were returned when at most'],
  'write-wrong-size': ['filestore_write', { path: '/bad/n.txt', content: 'abc' }, 'a size of 1000000000000 bytes after writing 3 bytes'],
  'negative-size': ['filestore_read', { path: '/bad/d/a.txt' }, "field 'the entry.size' is -5, not an unsigned 64-bit integer"],
  'string-size': ['filestore_read', { path: '/bad/d/a.txt' }, "field 'the entry.size' is \"12\""],
  'bad-kind': ['filestore_read', { path: '/bad/d/a.txt' }, "field 'the entry.kind' is \"fifo\", not 'file' or 'directory'"],
  'read-not-bytes': ['filestore_read', { path: '/bad/d/a.txt' }, 'the data is "alpha\\n", not a Uint8Array'],
  'list-not-array': ['filestore_ls', { path: '/bad/d' }, 'the list is an object, not an array of entries'],
  'walk-missing-truncated': ['filestore_glob', { pattern: '**', path: '/bad' }, "field 'truncated' is undefined, not a boolean"],
  'throws-type-error': ['filestore_read', { path: '/bad/d/a.txt' }, "the volume's read threw TypeError: Cannot read properties of null"],
  'throws-string': ['filestore_read', { path: '/bad/d/a.txt' }, "the volume's stat threw \"disk on fire\""],
  'throws-node-error': ['filestore_read', { path: '/bad/d/a.txt' }, "the volume's read failed: ENOENT (open)"],
  'unknown-error-kind': ['filestore_read', { path: '/bad/d/a.txt' }, "an error of unknown kind \"exploded\": kaboom"],
  'returns-undefined': ['filestore_read', { path: '/bad/d/a.txt' }, 'the entry is undefined, not an entry object'],
  'attributes-array': ['filestore_read', { path: '/bad/d/a.txt' }, "field 'the entry.attributes' is an array, not a JSON object"],
};

test('every misbehaviour is a backend error of that call; the session and its honest mount go on', async () => {
  const fs = await filestore();
  const bystander = fs.session({ mounts: [{ point: '/w', volume: new MemoryVolume({ '/x.txt': 'x\n' }) }] });
  for (const [lie, [tool, args, says]] of Object.entries(calls)) {
    const s = fs.session({
      mounts: [
        { point: '/bad', volume: liar(lie) },
        { point: '/good', volume: new MemoryVolume({ '/ok.txt': 'fine\n' }) },
      ],
    });
    let err;
    try {
      s.call(tool, args);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof FilestoreError, `${lie}: a typed error, got ${err}`);
    assert.equal(err.kind, 'backend', `${lie}: ${err.message}`);
    assert.ok(err.message.includes(says), `${lie}: ${err.message}`);
    assert.ok(err.message.startsWith('/bad'), `${lie}: names the virtual path: ${err.message}`);
    assert.ok(!err.message.includes('/srv/secret'), `${lie}: no host path: ${err.message}`);
    assert.equal(s.poisoned, undefined, `${lie}: the session is not poisoned`);
    // The same session keeps working, on the honest mount and on the lying one's
    // other calls.
    assert.equal(s.call('filestore_read', { path: '/good/ok.txt' }).json.text, '     1\tfine\n', lie);
    assert.equal(s.call('filestore_write', { path: '/good/new.txt', content: 'n' }).json.entry.size, 1, lie);
    s.close();
  }
  assert.equal(bystander.call('filestore_read', { path: '/w/x.txt' }).json.total_lines, 1);
  bystander.close();
});

test('an error of an unexpected (but valid) kind is passed on typed', async () => {
  const fs = await filestore();
  const s = fs.session({ mounts: [{ point: '/bad', volume: liar('wrong-error-kind') }] });
  assert.throws(
    () => s.call('filestore_read', { path: '/bad/d/a.txt' }),
    (e) => e instanceof FilestoreError && e.kind === 'already-exists' && e.message === '/bad/d/a.txt: a stat that says already-exists',
  );
  assert.deepEqual(s.call('filestore_ls', { path: '/', details: true }).json.entries.map((e) => e.path), ['/bad']);
  s.close();
});

test('a trap poisons its own session only', async () => {
  const fs = await filestore();
  const a = fs.session({ mounts: [{ point: '/w', volume: new MemoryVolume({ '/a.txt': 'a\n' }) }] });
  const b = fs.session({ mounts: [{ point: '/w', volume: new MemoryVolume({ '/b.txt': 'b\n' }) }] });
  // An allocation no wasm32 memory can hold (4 GiB on top of what is in use) fails
  // before a page is touched, and the component aborts: a trap.
  assert.throws(
    () => a.guard(() => a.exports.diagnostics.allocate(4294967295n)),
    (e) => e instanceof FilestoreError && e.kind === 'trap' && e.poisonsSession,
  );
  assert.throws(
    () => a.call('filestore_read', { path: '/w/a.txt' }),
    (e) => e.kind === 'trap' && /unusable after an earlier trap/.test(e.message),
  );
  assert.equal(b.call('filestore_read', { path: '/w/b.txt' }).json.text, '     1\tb\n');
  a.close();
  const c = fs.session({ mounts: [{ point: '/w', volume: new MemoryVolume({ '/a.txt': 'again\n' }) }] });
  assert.equal(c.call('filestore_read', { path: '/w/a.txt' }).json.text, '     1\tagain\n');
  b.close();
  c.close();
});
