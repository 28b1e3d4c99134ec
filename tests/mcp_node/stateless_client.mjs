// A 2026-07-28 client (the TypeScript SDK, @modelcontextprotocol/client 2.x, its
// protocol pinned to 2026-07-28: no initialize, no session, `_meta` on every
// request) against two `filestore serve --http --state` replicas.
//
// Run by tests/integration/replicas.rs as
// `node stateless_client.mjs SDK_ENTRY URL_A URL_B`, SDK_ENTRY being the installed
// package's ESM entry. Every request names its conversation in
// `_meta["filestore/conversation"]` and the two replicas alternate: a write on A is
// read on B, a result stored on A is read on B, a skill read on A offers its tool on
// B, an approval asked on A is answered on B. A request naming no conversation keeps
// nothing. Prints `ok` at the end.

import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const [entry, urlA, urlB] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(entry).href);
const CONV = { 'filestore/conversation': 'ts-stateless' };

const text = (r) => (r.content ?? []).map((c) => c.text ?? '').join('');

async function connect(url, { elicitation = true, autoFulfill = true } = {}) {
  const client = new Client(
    { name: 'filestore-ts-test', version: '1.0.0' },
    {
      capabilities: elicitation ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill },
    },
  );
  if (elicitation) {
    // The SDK's own loop answers an `input_required` result through this handler.
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { approve: true },
    }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const a = await connect(urlA);
const b = await connect(urlB);
assert.equal(a.getNegotiatedProtocolVersion(), '2026-07-28');

let r = await a.callTool({
  name: 'filestore_write',
  arguments: { path: '/scratch/ts.txt', content: 'from the typescript sdk on A\n' },
  _meta: CONV,
});
assert.ok(!r.isError, text(r));
r = await b.callTool({ name: 'filestore_read', arguments: { path: '/scratch/ts.txt' }, _meta: CONV });
assert.match(text(r), /from the typescript sdk on A/);

r = await a.callTool({ name: 'count_rows', arguments: {}, _meta: CONV });
assert.ok(!r.isError, text(r));
const stored = r.structuredContent.result_path;
r = await b.callTool({ name: 'filestore_read', arguments: { path: stored }, _meta: CONV });
assert.match(text(r), /42/);

const names = async (client) =>
  (await client.listTools({ _meta: CONV }, { cacheMode: 'refresh' })).tools.map((t) => t.name);
assert.ok(!(await names(b)).includes('hidden_report'));
r = await a.callTool({
  name: 'filestore_read',
  arguments: { path: '/skills/reporting/SKILL.md' },
  _meta: CONV,
});
assert.match(text(r), /enabled tools: hidden_report/);
assert.ok((await names(b)).includes('hidden_report'));
r = await b.callTool({ name: 'hidden_report', arguments: {}, _meta: CONV });
assert.ok(!r.isError && /7/.test(text(r)), text(r));

// An approval asked on A (input_required, the call parked in the conversation) and
// answered on B; the same answer replayed on A finds nothing to run.
const manualA = await connect(urlA, { autoFulfill: false });
const manualB = await connect(urlB, { autoFulfill: false });
const asked = await manualA.callTool(
  { name: 'purge', arguments: {}, _meta: CONV },
  { allowInputRequired: true },
);
assert.equal(asked.resultType, 'input_required', JSON.stringify(asked));
assert.ok(asked.inputRequests.approve, JSON.stringify(asked));
const yes = { approve: { action: 'accept', content: { approve: true } } };
const answer = { name: 'purge', arguments: {}, _meta: CONV, inputResponses: yes, requestState: asked.requestState };
r = await manualB.callTool(answer);
assert.ok(!r.isError && /purged/.test(text(r)), text(r));
r = await manualA.callTool(answer);
assert.ok(r.isError && /no call waiting/.test(text(r)), text(r));

// The SDK's own loop: asked, answered by the handler, retried.
r = await a.callTool({ name: 'purge', arguments: {}, _meta: CONV });
assert.ok(!r.isError && /purged/.test(text(r)), text(r));

// No conversation named: each request has its own /scratch, nothing is kept.
r = await a.callTool({ name: 'filestore_write', arguments: { path: '/scratch/gone.txt', content: 'x\n' } });
assert.ok(!r.isError, text(r));
r = await a.callTool({ name: 'filestore_read', arguments: { path: '/scratch/gone.txt' } });
assert.ok(r.isError, text(r));

// A client that does not declare elicitation cannot be asked: -32021, nothing ran.
const plain = await connect(urlA, { elicitation: false });
await assert.rejects(
  plain.callTool({ name: 'purge', arguments: {}, _meta: CONV }),
  (e) => e.code === -32021 || /-32021/.test(String(e)),
);

for (const c of [a, b, manualA, manualB, plain]) await c.close();
console.log('ok');
