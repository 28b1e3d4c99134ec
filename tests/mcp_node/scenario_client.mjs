// One client session through a scenario, with the TypeScript SDK: the single
// package `@modelcontextprotocol/sdk` 1.x, or `@modelcontextprotocol/client` 2.x.
//
// Run by tests/integration/mcp/clients.rs as
// `node scenario_client.mjs sdk1|client2 DIST_DIR < SCENARIO`, DIST_DIR being the
// installed package's ESM directory, SCENARIO the JSON tests/mcp_python/
// scenario_client.py reads. Lists the tools first (as a desktop client does: the SDK
// then checks each result against the tool's outputSchema), then prints one JSON
// line per step, what the SDK handed back (`{"result": ...}` or `{"error": {"code",
// "message", "data"}}` for an error it threw), then `{"closed": true}`. The SDK's
// warnings go to stderr, which the test expects to be empty; the server's stderr is
// not inherited.

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [family, dist] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(0, 'utf8'));
const load = (file) => import(pathToFileURL(`${dist}/${file}`).href);

let Client, StdioClientTransport, StreamableHTTPClientTransport;
if (family === 'sdk1') {
  ({ Client } = await load('client/index.js'));
  ({ StdioClientTransport } = await load('client/stdio.js'));
  ({ StreamableHTTPClientTransport } = await load('client/streamableHttp.js'));
} else if (family === 'client2') {
  ({ Client, StreamableHTTPClientTransport } = await load('index.mjs'));
  ({ StdioClientTransport } = await load('stdio.mjs'));
} else {
  throw new Error(`unknown client family ${family}: sdk1 or client2`);
}

const server = scenario.server;
const transport = server.url
  ? new StreamableHTTPClientTransport(new URL(server.url))
  : new StdioClientTransport({ command: server.command, args: server.args, stderr: 'ignore' });
const client = new Client({ name: `filestore-scenario-${family}`, version: '1.0.0' });
await client.connect(transport);
await client.listTools();

const text = (content) =>
  (content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

for (const step of scenario.steps) {
  let line;
  try {
    if (step.resource) {
      const r = await client.readResource({ uri: step.resource });
      line = { result: { text: r.contents[0]?.text ?? null } };
    } else {
      const r = await client.callTool({ name: step.tool, arguments: step.arguments ?? {} });
      line = {
        result: {
          isError: r.isError === true,
          text: text(r.content),
          structured: r.structuredContent !== undefined,
          meta: r._meta ?? null,
        },
      };
    }
  } catch (e) {
    line = { error: { code: e.code ?? null, message: e.message, data: e.data ?? null } };
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
// Closing an HTTP session is the client's to ask for (a DELETE): done as an app
// leaving would.
if (server.url) await transport.terminateSession();
await client.close();
process.stdout.write(`${JSON.stringify({ closed: true })}\n`);
