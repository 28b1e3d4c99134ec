// `filestore_execute` through the Node host: `Session#execute` hands the command's
// output to `onOutput` while it runs (the WIT `shell-output` import), in order and
// stdout/stderr apart, and the streamed bytes equal the result's.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { MemoryVolume } from '../src/index.js';
import { filestore } from './harness.js';

test('execute streams output in order and equal to the result', async () => {
  const fs = await filestore();
  const s = fs.session({ mounts: [{ point: '/w', volume: new MemoryVolume({}) }] });
  s.enableShell(true);
  const chunks = [];
  const out = s.execute(
    { command: 'for i in 1 2; do echo $i; echo e$i >&2; done; echo end' },
    { onOutput: (stream, bytes) => chunks.push([stream, Buffer.from(bytes).toString('utf8')]) },
  );
  const runs = [];
  for (const [stream, text] of chunks) {
    if (runs.length && runs.at(-1)[0] === stream) runs.at(-1)[1] += text;
    else runs.push([stream, text]);
  }
  assert.deepEqual(runs, [['stdout', '1\n'], ['stderr', 'e1\n'], ['stdout', '2\n'], ['stderr', 'e2\n'], ['stdout', 'end\n']]);
  const joined = (which) => chunks.filter(([st]) => st === which).map(([, t]) => t).join('');
  assert.equal(joined('stdout'), out.json.stdout);
  assert.equal(joined('stderr'), out.json.stderr);
  // No callback: the same answer; a throwing callback does not break the session.
  assert.equal(s.call('filestore_execute', { command: 'echo plain' }).json.stdout, 'plain\n');
  const again = s.execute({ command: 'echo x' }, { onOutput: () => { throw new Error('boom'); } });
  assert.equal(again.json.stdout, 'x\n');
  s.close();
});

test('python3 says this host has no CPython (the WIT python import)', async () => {
  const fs = await filestore();
  const s = fs.session({ mounts: [{ point: '/w', volume: new MemoryVolume({}) }] });
  s.enableShell(true);
  const out = s.call('filestore_execute', { command: "python3 -c 'print(1)'; echo status $?" }).json;
  assert.equal(out.stdout, 'status 127\n');
  assert.match(out.stderr, /python3 runs in the Rust host/);
  assert.match(out.stderr, /Node host/);
  assert.equal(s.call('filestore_execute', { command: 'echo after' }).json.stdout, 'after\n');
  s.close();
});
