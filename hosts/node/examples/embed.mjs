// node examples/embed.mjs GEN_DIR   (GEN_DIR: the output of scripts/transpile.mjs)
import { DirVolume, Filestore, MemoryVolume, ToolError, ToolHost, VolumeError, resultsMount } from '../src/index.js';

const filestore = await Filestore.load(process.argv[2] ?? 'gen'); // compiled once; share it

// A volume of your own: any object with the volume methods (stat, list, walk, read,
// write, delete, rename; createDir, append and prefetch are optional). Paths arrive
// volume-relative and normalised; errors are thrown as VolumeError(kind, message).
const notes = new MemoryVolume({ '/todo.md': '- ship the Node host\n' });
const frozen = {
  stat: (p) => notes.stat(p),
  list: (p) => notes.list(p),
  walk: (p, max) => notes.walk(p, max),
  read: (p, offset, len) => notes.read(p, offset, len),
  write: () => { throw new VolumeError('read-only', 'this volume is frozen'); },
  delete: () => { throw new VolumeError('read-only', 'this volume is frozen'); },
  rename: () => { throw new VolumeError('read-only', 'this volume is frozen'); },
};

// Tool handlers are JS functions, by tool type (from a tools.yaml).
const tools = new ToolHost({
  handlers: {
    weather: (req) => {
      if (req.arguments.city === 'Atlantis') throw new ToolError('not-found', 'no such city');
      return { city: req.arguments.city, sky: 'clear' };
    },
  },
});

// One session per conversation: its own component instance.
const session = filestore.session({
  id: 'conversation-1',
  mounts: [
    { point: '/workspace', volume: new DirVolume('./src', { readOnly: true }), readOnly: true },
    { point: '/notes', volume: frozen },
    { point: '/scratch', volume: new MemoryVolume() },
    resultsMount(),
  ],
  tools,
});
const out = session.call('filestore_grep', { pattern: 'export class', path: '/workspace', output_mode: 'content' });
console.log(out.text); // out.json is the structured result
try {
  session.call('filestore_write', { path: '/notes/todo.md', content: 'x' });
} catch (e) {
  console.log(String(e)); // error[read-only]: /notes/todo.md: this volume is frozen
}
session.loadConfig([{
  name: 'tools.yaml',
  text: 'kind: tool\nname: forecast\ntype: weather\ndescription: The forecast.\nparameters:\n  - {name: city, type: string, description: The city.}\n',
}]);
console.log(JSON.stringify(session.invoke('forecast', { city: 'Basel' }, { toolCallId: 'call-1' }).envelope));
session.close();
