// filestore for Node.js: the filestore WebAssembly component (the exact one the
// `filestore` binary runs) hosted in JavaScript through jco.
//
//   filestore component -o filestore.wasm
//   npx jco transpile filestore.wasm --instantiation sync -o gen
//
// then `Filestore.load('gen')` and one `session()` per conversation; the npm package
// (scripts/pack.mjs) bundles the transpiled component, so there `Filestore.load()`
// needs no argument. Volumes and tool handlers are plain JS objects and functions;
// see docs/embedding.md.

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { FilestoreError, ToolError } from './errors.js';
import { WitVolume } from './guard.js';
import { DirVolume } from './dir.js';
import { MemoryVolume } from './memory.js';
import { ToolHost } from './tools.js';
import { wasiImports, GuestExit } from './wasi.js';

export { ERROR_KINDS, FilestoreError, ToolError, VolumeError } from './errors.js';
export { DirVolume } from './dir.js';
export { MAX_READ_CALL_BYTES } from './guard.js';
export { MemoryVolume } from './memory.js';
export { ToolHost } from './tools.js';

/** The component the npm package bundles (scripts/pack.mjs writes it). */
const BUNDLED = fileURLToPath(new URL('../gen', import.meta.url));

/** Where the component keeps stored tool results (a read-only in-memory mount). */
export const RESULTS_MOUNT = '/tool_calls';

const BUILTIN = new Set([
  'filestore_ls',
  'filestore_read',
  'filestore_glob',
  'filestore_grep',
  'filestore_tree',
  'filestore_write',
  'filestore_edit',
  'filestore_delete',
  'filestore_move',
  'filestore_mkdir',
  'filestore_execute',
  'filestore_diff',
]);

/** The WIT package this host implements (`filestore component --wit` writes it). */
export const PACKAGE = 'filestore:component@0.11.0';

/** The tool-results mount a session with configured tools needs: in memory, read-only. */
export function resultsMount() {
  return { point: RESULTS_MOUNT, volume: new MemoryVolume(), readOnly: true };
}

/**
 * The loaded component: core modules compiled once, instantiated once per session.
 * Sessions are isolated instances: a trap in one (a guest panic, `exit`, a stack
 * overflow) poisons that session only.
 */
export class Filestore {
  /**
   * Loads the output of `jco transpile filestore.wasm --instantiation sync -o DIR`
   * (an ES module, hence the promise); sessions are then created synchronously.
   * Without `dir`, loads the component the npm package bundles (its `gen/`, written
   * by scripts/pack.mjs); a checkout has none until you transpile one.
   * @param {string} [dir] the transpiled directory (holds `filestore.js` and its `*.wasm`)
   * @returns {Promise<Filestore>}
   */
  static load(dir) {
    const abs = dir === undefined ? BUNDLED : resolve(dir);
    const entry = join(abs, 'filestore.js');
    if (!existsSync(entry)) {
      const why =
        dir === undefined
          ? 'this copy of the package bundles no component (a checkout has none): run scripts/transpile.mjs and pass its output directory, or install the npm package'
          : 'the directory holds no transpiled component: pass the output directory of scripts/transpile.mjs (jco transpile --instantiation sync)';
      return Promise.reject(new FilestoreError('not-found', `${entry}: ${why}`));
    }
    return import(pathToFileURL(entry).href).then((mod) => new Filestore(abs, mod));
  }

  /** Use {@link Filestore.load}. */
  constructor(dir, mod) {
    this.dir = dir;
    this.mod = mod;
    this.modules = new Map();
    this.nextId = 1;
  }

  coreModule(name) {
    let m = this.modules.get(name);
    if (!m) {
      m = new WebAssembly.Module(readFileSync(join(this.dir, name)));
      this.modules.set(name, m);
    }
    return m;
  }

  /**
   * A new session (one per conversation): its own component instance over `mounts`.
   * @param {object} options
   * @param {Array<{point: string, volume: object, priority?: number, readOnly?: boolean, upper?: object}>} options.mounts
   *   `upper`: a copy-on-write mount (docs/cow.md): `volume` is the lower layer, opened
   *   read-only, and every change lands in `upper` (see {@link cowMount})
   * @param {ToolHost} [options.tools] runs configured tools (default: none)
   * @param {object} [options.limits] component limits (`readTokens`, `fileBytes`,
   *   `regexBytes`, `walkEntries`, `grepRecords`, `writeBytes`); absent: defaults
   * @param {string} [options.id] the session id tool handlers see
   * @returns {Session}
   */
  session({ mounts = [], tools = new ToolHost(), limits = {}, id } = {}) {
    checkMounts(mounts);
    return new Session(this, { mounts, tools, limits, id: id ?? `session-js-${process.pid}-${this.nextId++}` });
  }
}

/**
 * A copy-on-write mount (docs/cow.md) of the host directory `lower` at `point`: reads
 * fall through to the directory, opened read-only so nothing through the mount can
 * write it; writes, edits, moves and deletes land in `upper` (a new in-memory volume
 * by default: keep it to read the changes, or give a `DirVolume` to keep them). The
 * session offers `filestore_diff` over it.
 * @param {string} point
 * @param {string} lower a host directory
 * @param {object} [upper] the volume taking the changes
 */
export function cowMount(point, lower, upper = new MemoryVolume()) {
  return { point, volume: new DirVolume(lower, { readOnly: true }), upper };
}

/** Refuses mounts that would break a promise, as the Rust host's `check_mounts`. */
function checkMounts(mounts) {
  for (const cow of mounts.filter((m) => m.upper !== undefined)) {
    if (cow.readOnly) {
      throw new FilestoreError('invalid-argument', `the copy-on-write mount at '${cow.point}' cannot be read-only: its changes land in its upper volume`);
    }
    if (cow.volume instanceof DirVolume && !cow.volume.readOnly) {
      throw new FilestoreError(
        'invalid-argument',
        `the lower directory of the copy-on-write mount at '${cow.point}' is writable; open it read-only (new DirVolume(dir, { readOnly: true }), or use cowMount) so nothing through the mount can write it`,
      );
    }
    const [l, u] = [cow.volume.identity?.(), cow.upper.identity?.()];
    const within = (a, b) => a.storage === b.storage && b.root.every((t, i) => a.root[i] === t);
    if (l && u && (within(u, l) || within(l, u))) {
      throw new FilestoreError(
        'invalid-argument',
        `the copy-on-write mount at '${cow.point}' has its upper layer and its lower directory inside one another, so changes would reach the lower directory; keep the upper directory outside it`,
      );
    }
  }
  const results = mounts.find((m) => m.point === RESULTS_MOUNT && !m.volume.keepsEntryMetadata?.());
  if (results) {
    throw new FilestoreError(
      'invalid-argument',
      `the mount at '${results.point}' holds tool results, which must stay read-only with their attributes; this volume cannot keep entry metadata (a directory cannot), so agents could edit stored results. Use an in-memory volume there`,
    );
  }
  for (const ro of mounts.filter((m) => m.readOnly)) {
    const a = ro.volume.identity?.();
    if (!a) continue;
    for (const rw of mounts.filter((m) => !m.readOnly)) {
      const b = rw.volume.identity?.();
      if (b && a.storage === b.storage && b.root.every((t, i) => a.root[i] === t) && a.root.length >= b.root.length) {
        throw new FilestoreError(
          'invalid-argument',
          `the read-only mount at '${ro.point}' lies inside the storage of the writable mount at '${rw.point}', through which its files could be changed; mount '${rw.point}' read-only too, or choose roots that do not contain each other`,
        );
      }
    }
  }
}

/**
 * Runs `f` with `WebAssembly.promising` defined as the identity when the runtime
 * lacks it (Node 20, 22 without JSPI). jco's generated instantiation wraps some 60
 * exports in `try { WebAssembly.promising(...) } catch {}` for its async mode; without
 * the function each of those throws a `TypeError` whose message V8 renders by
 * re-parsing the (20,000-line) enclosing function — 200 ms per session. The wrapped
 * values are only used by jco's async mode, which this host does not use.
 */
function withPromisingStub(f) {
  if (typeof WebAssembly.promising === 'function') return f();
  WebAssembly.promising = (fn) => fn;
  try {
    return f();
  } finally {
    delete WebAssembly.promising;
  }
}

const u64 = (v) => (v === undefined ? undefined : BigInt(v));

/** Why `python3` does not run in this host (the WIT `python` interface). */
export const NO_PYTHON =
  'command not found: python3 runs in the Rust host (filestore serve, the sandbox crate), in a ' +
  'WebAssembly instance of its own; this Node host has no CPython to give it';

/** The WIT `python.run` of a host without CPython: `start` refuses, so none exists. */
class NoPythonRun {
  static start() {
    return { tag: 'err', val: { tag: 'unsupported', val: NO_PYTHON } };
  }

  next() {
    return { tag: 'finished', val: { exitCode: 1, stdout: new Uint8Array(0), stderr: new TextEncoder().encode(`${NO_PYTHON}\n`) } };
  }
}

/**
 * One sandboxed filestore: a component instance with its mounts. Calls are
 * synchronous. Errors are {@link FilestoreError}s; one of kind `trap` poisons the
 * session (later calls refuse): {@link Session#close} it and open another.
 */
export class Session {
  constructor(fs, { mounts, tools, limits, id }) {
    /** The session id tool handlers see. */
    this.id = id;
    this.poisoned = undefined;
    this.closed = false;
    this.tools = tools;
    this.sources = new Map();
    this.wasi = wasiImports();
    const imports = {
      ...this.wasi.imports,
      'filestore:component/types': {},
      'filestore:component/volume': { Volume: WitVolume },
      'filestore:component/tool-host': tools.imports(id, () => this.sources),
      // A running shell command's output (bounded chunks, see the WIT
      // `shell-output`), to the `onOutput` of the call running now, if any.
      // The shell's `python3`: CPython runs only in the Rust host, in an instance of
      // its own; here `start` answers `unsupported` and the shell says so (127).
      'filestore:component/python': { Run: NoPythonRun },
      'filestore:component/shell-output': {
        emit: (stream, chunk) => {
          // A throwing callback must not trap the component: its output is a preview.
          try {
            this.onOutput?.(stream, Uint8Array.from(chunk));
          } catch {}
        },
      },
    };
    this.exports = this.guard(() => withPromisingStub(() => fs.mod.instantiate((name) => fs.coreModule(name), imports)));
    const witMounts = mounts.map((m) => ({
      point: m.point,
      volume: new WitVolume(m.volume),
      priority: m.priority ?? 0,
      readOnly: Boolean(m.readOnly),
      upper: m.upper === undefined ? undefined : new WitVolume(m.upper),
    }));
    const witLimits = {
      readTokens: limits.readTokens,
      fileBytes: u64(limits.fileBytes),
      regexBytes: limits.regexBytes,
      walkEntries: limits.walkEntries,
      grepRecords: limits.grepRecords,
      writeBytes: u64(limits.writeBytes),
    };
    this.handle = this.guard(() => this.exports.filestore.Session.create(witMounts, witLimits));
  }

  /** Runs `f` against the instance, turning every failure into a typed error. */
  guard(f) {
    if (this.closed) throw new Error(`session ${this.id} is closed`);
    if (this.poisoned !== undefined) {
      throw new FilestoreError('trap', `session is unusable after an earlier trap (${this.poisoned}); create a new session`);
    }
    try {
      return f();
    } catch (e) {
      if (e && typeof e === 'object' && 'payload' in e) {
        const p = e.payload;
        if (p && typeof p.tag === 'string' && typeof p.val === 'string') throw new FilestoreError(p.tag, p.val);
        throw e; // a list of configuration errors: the caller unpacks it
      }
      let why = e instanceof GuestExit ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      const stderr = this.wasi.stderrText().trim();
      if (stderr) why += ` (the component wrote: ${stderr.split('\n').slice(-3).join(' | ')})`;
      this.poisoned = why;
      throw new FilestoreError('trap', `sandbox trap: ${why}`);
    }
  }

  /**
   * Runs a tool by name with JSON arguments: `{json, text}`. Filestore tools
   * (`filestore_read`...) run in the component; any other name is invoked like
   * {@link Session#invoke} with no call id, and a failed invocation throws.
   */
  call(tool, args = {}) {
    if (!BUILTIN.has(tool)) {
      const out = this.invoke(tool, args);
      if (out.status === 'failed' && out.error) throw new FilestoreError(out.error.kind, out.error.message);
      return { json: out.envelope, text: out.text };
    }
    const out = this.guard(() => this.handle.call(tool, JSON.stringify(args)));
    return { json: JSON.parse(out.json), text: out.text };
  }

  // The typed read side (WIT `session.read`... ; see wit/filestore.wit for every
  // field): requests are the WIT records as jco spells them (camelCase fields,
  // absent options left out, enum values by their WIT case names), results the WIT
  // records as jco returns them (u64 as bigint, absent options undefined). A failure
  // throws a FilestoreError, as `call` does.

  /** A page of a file (`{path, offset?, limit?, raw?, tail?}`): the `read-result`. */
  read(request) {
    return this.guard(() => this.handle.read(request));
  }

  /**
   * Several files read alike (`{paths, offset?, limit?, raw?, tail?}`, at most 32):
   * `[{path, result}]` or `[{path, error}]` per file, in order (`error` a
   * FilestoreError: one file's failure does not fail the others).
   */
  readMany(request) {
    const files = this.guard(() => this.handle.readMany(request));
    return files.map(({ path, outcome }) =>
      outcome.tag === 'ok' ? { path, result: outcome.val } : { path, error: new FilestoreError(outcome.val.tag, outcome.val.val) },
    );
  }

  /**
   * A page of a file's bytes (`{path, offset?, maxBytes?}`, numbers or bigints):
   * `{entry, data: Uint8Array, offset, nextOffset}`; `nextOffset` undefined at the end.
   */
  readBytes({ path, offset, maxBytes }) {
    const big = (v) => (v === undefined || v === null ? undefined : BigInt(v));
    return this.guard(() => this.handle.readBytes({ path, offset: big(offset), maxBytes: big(maxBytes) }));
  }

  /** Files by pattern (`{pattern, path?, limit?, exclude?, hidden?}`): the `glob-result`. */
  glob(request) {
    return this.guard(() => this.handle.glob(request));
  }

  /** A content search (`{pattern, ..., outputMode?, hidden?}`): the `grep-result` with every counter. */
  grep(request) {
    return this.guard(() => this.handle.grep(request));
  }

  /** The rendered tree (`{path?, maxDepth?, maxFilesPerFolder?, exclude?}`). */
  tree(request = {}) {
    return this.guard(() => this.handle.tree(request));
  }

  /** The same tree as data: `{path, nodes, topCount, moreFiles, truncated, rendered}`. */
  treeNodes(request = {}) {
    return this.guard(() => this.handle.treeNodes(request));
  }

  /** Metadata of one path (the WIT entry, sizes as bigint). */
  stat(path) {
    return this.guard(() => this.handle.stat(path));
  }

  /** The filestore tools this session offers (MCP tool specs). */
  toolSpecs() {
    return JSON.parse(this.guard(() => this.handle.toolSpecs()));
  }

  /**
   * Loads configuration files (`[{name, text}]`, MCP Toolbox tools.yaml) as the
   * session's configured tools; resolves the sources of the tools the tool host runs.
   * Returns the report; throws a {@link ConfigErrors} listing every located error.
   *
   * `variables` are the values of `${NAME}` references in names, descriptions,
   * titles and toolset members (what agents see; the component substitutes them).
   * Pass only what agents may see: never the whole environment. Sources are resolved
   * here, by the tool host, and never enter the component.
   * @param {Array<{name: string, text: string}>} files
   * @param {{variables?: Record<string, string>}} [options]
   */
  loadConfig(files, { variables = {} } = {}) {
    const vars = Object.entries(variables).map(([name, value]) => ({ name, value: String(value) }));
    const check = this.configCall(() => this.exports.tools.checkConfig(files, vars));
    try {
      this.sources = this.tools.resolveSources(check);
    } catch (e) {
      if (e instanceof ToolError) throw new FilestoreError(e.kind, e.message);
      throw e;
    }
    return this.configCall(() => this.exports.tools.loadConfig(this.handle, files, vars));
  }

  /** The prompts of the loaded configuration (`[{name, description, arguments}]`). */
  listPrompts() {
    return this.guard(() => this.exports.tools.listPrompts(this.handle));
  }

  /** A prompt's messages (`[{role, content}]`) for `args`. */
  getPrompt(name, args = {}) {
    return this.guard(() => this.exports.tools.getPrompt(this.handle, name, JSON.stringify(args)));
  }

  configCall(f) {
    try {
      return this.guard(f);
    } catch (e) {
      if (e && Array.isArray(e.payload)) throw new ConfigErrors(e.payload);
      throw e;
    }
  }

  /** Selects the exposed toolset (`undefined`: every configured tool). */
  selectToolset(toolset) {
    this.guard(() => this.exports.tools.selectToolset(this.handle, toolset));
  }

  /** Every tool the session offers (MCP specs), for `toolset` or the selected one. */
  listTools(toolset) {
    return JSON.parse(this.guard(() => this.exports.tools.listTools(this.handle, toolset)));
  }

  /** Grows whenever the tool list changes. */
  toolsVersion() {
    return Number(this.guard(() => this.exports.tools.toolsVersion(this.handle)));
  }

  /** The filestore block of a system prompt (tools, tree, skills). */
  systemPrompt(maxDepth, maxFilesPerFolder, skills) {
    // skills: {category?, tag?} lists only the skills whose descriptor matches.
    return this.guard(() =>
      this.exports.tools.systemPrompt(this.handle, maxDepth, maxFilesPerFolder, skills));
  }

  /** Resolves agent tool refs (array) and registers provider tools. */
  resolveRefs(refs) {
    return JSON.parse(this.guard(() => this.exports.tools.resolveRefs(this.handle, JSON.stringify(refs))));
  }

  /**
   * Runs `filestore_execute` with `args` (as {@link Session#call}), passing its
   * output to `onOutput(stream, bytes)` while it runs: `stream` is `'stdout'` or
   * `'stderr'`, `bytes` a `Uint8Array` of at most 4096 bytes (it may end inside a
   * UTF-8 character), in the order printed. The result is exactly what `call` returns.
   * @param {object} args the tool's arguments (`command`, `cwd`, `timeoutMs`...)
   * @param {{onOutput?: (stream: 'stdout'|'stderr', bytes: Uint8Array) => void}} [options]
   */
  execute(args, { onOutput } = {}) {
    const saved = this.onOutput;
    this.onOutput = onOutput;
    try {
      return this.call('filestore_execute', args);
    } finally {
      this.onOutput = saved;
    }
  }

  /** Offers (`true`) or withdraws `filestore_execute`, the shell over the mounts. */
  enableShell(enabled = true) {
    this.guard(() => this.exports.tools.enableShell(this.handle, enabled));
  }

  /** Sets the offloading threshold in estimated tokens. */
  setOffloadTokens(tokens) {
    this.guard(() => this.exports.tools.setOffloadTokens(this.handle, tokens));
  }

  /**
   * Invokes any tool with a call id and verified claims: `{status, envelope, text,
   * error?: {kind, message}, approvalId?, resultPath?, offloaded}`. A tool's failure
   * is `status: 'failed'`, not an exception.
   */
  invoke(name, args = {}, { toolCallId, claims } = {}) {
    const ctx = { toolCallId, claims: claims === undefined ? '{}' : JSON.stringify(claims) };
    return outcome(this.guard(() => this.exports.tools.invoke(this.handle, name, JSON.stringify(args), ctx)));
  }

  /** Runs a call that was waiting for approval. */
  approve(approvalId) {
    return outcome(this.guard(() => this.exports.tools.approve(this.handle, approvalId)));
  }

  /** Drops a call that was waiting for approval (nothing runs). */
  reject(approvalId) {
    this.guard(() => this.exports.tools.reject(this.handle, approvalId));
  }

  /** Ends the session: drops the component's session and the instance. */
  close() {
    if (this.closed) return;
    try {
      if (this.poisoned === undefined) this.handle?.[Symbol.dispose]?.();
    } catch {
      // A trapped instance cannot run destructors; it is dropped whole.
    }
    this.closed = true;
    this.handle = undefined;
    this.exports = undefined;
  }

  /** `using session = fs.session(...)` closes it at the end of the block. */
  [Symbol.dispose]() {
    this.close();
  }
}

function outcome(o) {
  return {
    status: o.status,
    envelope: JSON.parse(o.envelope),
    text: o.text,
    error: o.error ? { kind: o.error.tag, message: o.error.val } : undefined,
    approvalId: o.approvalId,
    resultPath: o.resultPath,
    offloaded: o.offloaded,
  };
}

/** Every located error of a configuration that did not load. */
export class ConfigErrors extends Error {
  constructor(errors) {
    super(errors.map((e) => e.rendered).join('\n'));
    this.name = 'ConfigErrors';
    /** `[{file, document, line, column, field, kind, message, rendered}]`. */
    this.errors = errors;
  }
}

