// A tool-host whose handlers are JS functions: a tools.yaml configures a tool type
// the Node host implements in JavaScript, the component validates every call, the
// handler runs, and the result is stored read-only under /tool_calls.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { FilestoreError, MemoryVolume, ToolError, ToolHost, resultsMount } from '../src/index.js';
import { filestore } from './harness.js';

const YAML = `kind: source
name: weather-api
type: js-weather
apiKey: \${WEATHER_KEY}
---
kind: tool
name: forecast
type: js-weather
source: weather-api
description: The forecast for a city.
parameters:
  - name: city
    type: string
    description: The city.
    allowedValues: ["Basel", "Zurich"]
  - name: days
    type: integer
    description: Days ahead.
    default: 1
    maxValue: 7
---
kind: tool
name: leaky
type: js-leaky
source: weather-api
description: Fails with a message holding the key.
`;

function host(calls) {
  return new ToolHost({
    env: { WEATHER_KEY: 'sk-secret-123' },
    handlers: {
      'js-weather': (req) => {
        calls.push(req);
        if (req.arguments.city === 'Zurich') throw new ToolError('not-found', 'no station in Zurich');
        return { city: req.arguments.city, days: req.arguments.days, sky: 'clear', keyLength: req.source.fields.apiKey.length };
      },
      'js-leaky': (req) => {
        throw new Error(`401 from https://api.invalid/?key=${req.source.fields.apiKey}`);
      },
    },
  });
}

test('a JS tool type from tools.yaml runs with validated arguments and its result is stored', async () => {
  const fs = await filestore();
  const calls = [];
  const s = fs.session({ mounts: [resultsMount(), { point: '/scratch', volume: new MemoryVolume() }], tools: host(calls), id: 'conversation-7' });
  const report = s.loadConfig([{ name: 'tools.yaml', text: YAML }]);
  assert.deepEqual(report.tools.map((t) => t.name), ['forecast', 'leaky']);
  assert.ok(s.listTools().some((t) => t.name === 'forecast'));

  const out = s.invoke('forecast', { city: 'Basel' }, { toolCallId: 'c1' });
  assert.equal(out.status, 'completed');
  assert.deepEqual(out.envelope.data, { city: 'Basel', days: 1, sky: 'clear', keyLength: 13 });
  assert.equal(out.resultPath, '/tool_calls/forecast/c1/result-1.json');
  // The handler saw the validated, defaulted arguments, the resolved source and the
  // host's session id (whatever the component would claim).
  assert.equal(calls[0].sessionId, 'conversation-7');
  assert.deepEqual(calls[0].arguments, { city: 'Basel', days: 1 });
  assert.equal(calls[0].source.fields.apiKey, 'sk-secret-123');
  // The stored result is an ordinary read-only file.
  const stored = s.call('filestore_read', { path: out.resultPath }).json;
  assert.equal(stored.entry.read_only, true);
  assert.match(stored.text, /"sky": "clear"/);
  // The secret never entered the component: not in the stored result, not in the tool list.
  assert.ok(!JSON.stringify(s.listTools()).includes('sk-secret-123'));

  // Validation happens in the component, before the handler.
  const refused = s.invoke('forecast', { city: 'Bern' }, { toolCallId: 'c2' });
  assert.equal(refused.status, 'failed');
  assert.equal(refused.error.kind, 'invalid-argument');
  assert.equal(calls.length, 1);
  // A handler's typed error, named after the tool.
  const failed = s.invoke('forecast', { city: 'Zurich' }, { toolCallId: 'c3' });
  assert.deepEqual(failed.error, { kind: 'not-found', message: "tool 'forecast': no station in Zurich" });
  // A thrown Error is a backend error, with the resolved secret replaced by its reference.
  const leaky = s.invoke('leaky', {}, { toolCallId: 'c4' });
  assert.equal(leaky.error.kind, 'backend');
  assert.equal(leaky.error.message, "tool 'leaky': the handler threw: 401 from https://api.invalid/?key=${WEATHER_KEY}");
  // Session.call of a configured tool throws the typed error.
  assert.throws(() => s.call('forecast', { city: 'Zurich' }), (e) => e instanceof FilestoreError && e.kind === 'not-found');
  s.close();
});

test('a missing environment variable of a needed source fails the load, naming it', async () => {
  const fs = await filestore();
  const tools = host([]);
  tools.env = {};
  const s = fs.session({ mounts: [resultsMount()], tools });
  assert.throws(
    () => s.loadConfig([{ name: 'tools.yaml', text: YAML }]),
    (e) => e instanceof FilestoreError && e.kind === 'invalid-argument' && e.message.includes("environment variable 'WEATHER_KEY', which is not set"),
  );
  s.close();
});

test('configuration errors come back located', async () => {
  const fs = await filestore();
  const s = fs.session({ mounts: [resultsMount()], tools: host([]) });
  assert.throws(
    () => s.loadConfig([{ name: 'bad.yaml', text: 'kind: tool\nname: x\n' }]),
    (e) => e.name === 'ConfigErrors' && e.errors[0].file === 'bad.yaml' && e.errors[0].line === 1,
  );
  s.close();
});

test('sessions are created and dropped per conversation, each with its own files', async () => {
  const fs = await filestore();
  const shared = new MemoryVolume({ '/readme.md': '# shared\n' });
  const sessions = Array.from({ length: 20 }, (_, i) =>
    fs.session({ id: `conversation-${i}`, mounts: [{ point: '/docs', volume: shared, readOnly: true }, { point: '/scratch', volume: new MemoryVolume() }] }),
  );
  sessions.forEach((s, i) => s.call('filestore_write', { path: '/scratch/mine.txt', content: `session ${i}` }));
  sessions.forEach((s, i) => {
    assert.equal(s.call('filestore_read', { path: '/scratch/mine.txt', raw: true }).json.text, `session ${i}`);
    assert.equal(s.call('filestore_read', { path: '/docs/readme.md' }).json.total_lines, 1);
  });
  for (const s of sessions) s.close();
  assert.throws(() => sessions[0].call('filestore_ls', {}), /closed/);
});
