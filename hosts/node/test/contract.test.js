// The shared contract suite (tests/contract/suite.json) through the Node host, on
// JS memory and directory volumes and JS tool handlers. Every answer must equal the
// Rust host's answer to the same step (FILESTORE_RUST_ANSWERS, written by
// tests/integration/node_host.rs); this host's answers are written to
// FILESTORE_NODE_ANSWERS for that test to count.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';

import { FilestoreError } from '../src/index.js';
import { caseMounts, filestore, normalise, suite, suiteTools, tempDir } from './harness.js';

const error = (e) => {
  if (e instanceof FilestoreError) return { error: { kind: e.kind, message: e.message } };
  throw e;
};

const outcome = (o) => ({
  status: o.status,
  envelope: o.envelope,
  text: o.text,
  error: o.error ?? null,
  approval_id: o.approvalId ?? null,
  result_path: o.resultPath ?? null,
  offloaded: o.offloaded,
});

const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** A typed result as contract_typed.rs shapes it: snake_case keys, numbers, null, hex bytes. */
function canon(v) {
  if (typeof v === 'bigint') return Number(v);
  if (v === undefined || v === null) return null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (Array.isArray(v)) return v.map(canon);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [snake(k), canon(x)]));
  return v;
}

/** A typed step (`{typed: op, args}`) through the Node host's typed methods. */
function typed(s, op, args) {
  const req = Object.fromEntries(Object.entries(args).map(([k, v]) => [camel(k), v]));
  switch (op) {
    case 'read':
      return canon(s.read(req));
    case 'read_many':
      return s.readMany(req).map(({ path, result, error: e }) => ({
        path,
        outcome: e ? error(e) : { ok: canon(result) },
      }));
    case 'read_bytes':
      return canon(s.readBytes(req));
    case 'glob':
      return canon(s.glob(req));
    case 'grep':
      return canon(s.grep(req));
    case 'tree':
      return s.tree(req);
    case 'tree_nodes':
      return canon(s.treeNodes(req));
    default:
      throw new Error(`unknown typed step '${op}'`);
  }
}

/** The answer to one step, shaped as contract.rs shapes the Rust host's. */
function answer(s, step) {
  try {
    if ('call' in step) {
      const o = s.call(step.call, step.args);
      return { json: o.json, text: o.text };
    }
    if ('typed' in step) return { typed: typed(s, step.typed, step.args) };
    const [op, arg] = Object.entries(step)[0];
    switch (op) {
      case 'tool_specs':
        return { json: s.toolSpecs() };
      case 'list_tools':
        return { json: s.listTools() };
      case 'tools_version':
        return { json: s.toolsVersion() };
      case 'system_prompt':
        return { text: s.systemPrompt(arg[0] ?? undefined, arg[1] ?? undefined) };
      case 'load_config':
        try {
          const r = s.loadConfig(arg);
          return {
            rendered: r.rendered,
            v2_yaml: r.v2Yaml,
            tools: r.tools.map((t) => ({ name: t.name, type: t.toolType, runnable: t.runnable })),
          };
        } catch (e) {
          if (e.name === 'ConfigErrors') return { config_errors: e.errors.map((x) => x.rendered) };
          throw e;
        }
      case 'invoke':
        return outcome(s.invoke(arg, step.args, { toolCallId: step.tool_call_id, claims: step.claims }));
      case 'approve':
        return outcome(s.approve(arg));
      case 'reject':
        s.reject(arg);
        return { ok: true };
      case 'select_toolset':
        s.selectToolset(arg ?? undefined);
        return { ok: true };
      case 'set_offload_tokens':
        s.setOffloadTokens(arg);
        return { ok: true };
      case 'enable_shell':
        s.enableShell(arg);
        return { ok: true };
      default:
        throw new Error(`unknown step '${op}'`);
    }
  } catch (e) {
    return error(e);
  }
}

const rust = process.env.FILESTORE_RUST_ANSWERS ? JSON.parse(fs.readFileSync(process.env.FILESTORE_RUST_ANSWERS, 'utf8')) : undefined;
const mine = [];

for (const kase of suite.cases) {
  for (const backend of kase.backends) {
    test(`${kase.name} [${backend}]`, async () => {
      const fsx = await filestore();
      const tmp = tempDir();
      try {
        const s = fsx.session({ mounts: caseMounts(kase, backend, tmp), tools: suiteTools() });
        const answers = kase.steps.map((step) => normalise(answer(s, step)));
        s.close();
        mine.push({ case: kase.name, backend, answers });
        if (rust) {
          const want = rust.find((r) => r.case === kase.name && r.backend === backend);
          assert.ok(want, 'the Rust host answered this case');
          answers.forEach((got, i) => {
            assert.deepStrictEqual(got, want.answers[i], `step ${i + 1}: ${JSON.stringify(kase.steps[i]).slice(0, 300)}`);
          });
        }
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
}

test('answers are written for the Rust side to count', () => {
  if (process.env.FILESTORE_NODE_ANSWERS) fs.writeFileSync(process.env.FILESTORE_NODE_ANSWERS, JSON.stringify(mine));
  assert.equal(mine.length, suite.cases.reduce((n, c) => n + c.backends.length, 0));
});
