// npm install ./filestore-node-host-VERSION.tgz, then: node quickstart.mjs
import { DirVolume, Filestore, MemoryVolume } from '@filestore/node-host';

const filestore = await Filestore.load(); // the component the package bundles

// One session per conversation: its own sandboxed component instance. The agent sees
// this directory at /project (read-only) and a scratch space in memory.
const session = filestore.session({
  mounts: [
    { point: '/project', volume: new DirVolume('.', { readOnly: true }), readOnly: true },
    { point: '/scratch', volume: new MemoryVolume() },
  ],
});

session.call('filestore_write', { path: '/scratch/notes.md', content: '# Notes\n- read the project\n' });
console.log(session.call('filestore_read', { path: '/scratch/notes.md' }).text);
console.log(session.call('filestore_ls', { path: '/project' }).text);

// The shell runs inside the sandbox too: it sees the mounts and nothing else.
session.enableShell();
console.log(session.execute({ command: 'grep -c Notes /scratch/notes.md && ls / | sort' }).text);

try {
  session.call('filestore_write', { path: '/project/x.txt', content: 'no' });
} catch (e) {
  console.log(String(e)); // error[read-only]: ...
}
session.close();
