// The embedding guide's Node snippet (docs/embedding.md) is examples/embed.mjs,
// verbatim, and it runs.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'node:test';

import { genDir, repoRoot } from './harness.js';

const example = path.join(repoRoot, 'hosts/node/examples/embed.mjs');

test("the embedding guide's Node snippet is examples/embed.mjs and runs", () => {
  const text = fs.readFileSync(example, 'utf8');
  const guide = fs.readFileSync(path.join(repoRoot, 'docs/embedding.md'), 'utf8');
  const blocks = guide.split('```js\n').slice(1).map((b) => b.slice(0, b.indexOf('```')));
  assert.ok(blocks.includes(text), "docs/embedding.md's ```js block must be hosts/node/examples/embed.mjs");
  const out = execFileSync(process.execPath, [example, genDir()], { cwd: path.join(repoRoot, 'hosts/node'), encoding: 'utf8' });
  assert.match(out, /\/workspace\/\S+\.js/, out);
  assert.ok(out.includes('error[read-only]: /notes/todo.md: this volume is frozen'), out);
  assert.ok(out.includes('"sky":"clear"'), out);
});
