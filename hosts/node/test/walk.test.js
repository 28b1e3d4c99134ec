// Glob walks through `walk-packed`, which this host packs from the backend's `walk`
// (guard.js): sizes, times, entry types, attributes and paths that are not ASCII
// survive the columns.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { MemoryVolume } from '../src/index.js';
import { filestore } from './harness.js';

test('glob sees what the backend walk returned, through the packed walk', async () => {
  const fs = await filestore();
  const m = new MemoryVolume({ '/a.txt': 'abc', '/dé/é.txt': 'ü', '/d/link.txt': '', '/d/z.txt': 'z'.repeat(9) });
  const backend = new Proxy(m, {
    get(target, prop) {
      if (prop === 'walk') {
        return (p, n) => {
          const w = target.walk(p, n);
          const entries = w.entries.map((e) => {
            if (e.kind !== 'file') return e;
            const extra = { modifiedMs: 1_700_000_000_000 + e.path.length, attributes: { n: e.path.length } };
            return e.path.endsWith('link.txt') ? { ...e, ...extra, entryType: 'symlink', size: 0 } : { ...e, ...extra };
          });
          return { ...w, entries };
        };
      }
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const s = fs.session({ mounts: [{ point: '/w', volume: backend }] });
  const files = s.call('filestore_glob', { pattern: '**/*.txt', path: '/w' }).json.files;
  assert.deepEqual(
    files.map((f) => [f.path, f.size, f.modified_ms, f.kind]),
    [
      ['/w/a.txt', 3, 1_700_000_000_006, undefined],
      ['/w/d/link.txt', 0, 1_700_000_000_011, 'symlink'],
      ['/w/d/z.txt', 9, 1_700_000_000_008, undefined],
      ['/w/dé/é.txt', 2, 1_700_000_000_009, undefined],
    ],
  );
});
