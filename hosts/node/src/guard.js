// The host side of the volume contract: `WitVolume` is the class the component's
// `volume` resource is made of. It calls a backend (any object with the volume
// methods: `MemoryVolume`, `DirVolume` or an embedder's own) and makes sure that
// whatever the backend does — throw anything, return the wrong types — the component
// receives a well-formed answer: a value of the WIT type, or a typed error. A backend
// exception must never unwind through the component (jco would trap the instance) and
// a value of the wrong shape must never reach the canonical ABI (jco would throw a
// TypeError in the middle of lowering, which also traps).
//
// The *semantic* checks (paths outside the request, more bytes than asked for, an
// entry for another path, a wrong written size) live in the component itself
// (`guest/src/vfs/checked.rs`), so they hold for every host, in every language.

import { VolumeError, isErrorKind } from './errors.js';

/**
 * Most bytes one `read` hands the component, whatever it asks for: a larger request
 * from a buggy or hostile guest must not make the host allocate gigabytes (the Rust
 * host's `MAX_READ_CALL_BYTES`).
 */
export const MAX_READ_CALL_BYTES = 16 * 1024 * 1024;

const U64_MAX = (1n << 64n) - 1n;

/** A broken answer: the error the component gets instead. */
class Broken extends Error {}

function describe(v) {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v);
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
}

/** A u64 from a number or bigint, or a `Broken` naming the field. */
function u64(v, field) {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n && v <= U64_MAX) return v;
  throw new Broken(`field '${field}' is ${describe(v)}, not an unsigned 64-bit integer`);
}

/** The WIT `entry` for a backend's entry object, or a `Broken` naming the field. */
function toWitEntry(e, where) {
  if (e === null || typeof e !== 'object') throw new Broken(`${where} is ${describe(e)}, not an entry object`);
  const f = (name) => `${where}.${name}`;
  if (typeof e.path !== 'string') throw new Broken(`field '${f('path')}' is ${describe(e.path)}, not a string`);
  if (e.kind !== 'file' && e.kind !== 'directory') {
    throw new Broken(`field '${f('kind')}' is ${describe(e.kind)}, not 'file' or 'directory'`);
  }
  const entry = { path: e.path, kind: e.kind, size: u64(e.size ?? 0, f('size')), readOnly: false };
  if (e.modifiedMs !== undefined && e.modifiedMs !== null) entry.modifiedMs = u64(e.modifiedMs, f('modifiedMs'));
  if (e.readOnly !== undefined) {
    if (typeof e.readOnly !== 'boolean') throw new Broken(`field '${f('readOnly')}' is ${describe(e.readOnly)}, not a boolean`);
    entry.readOnly = e.readOnly;
  }
  entry.entryType = e.entryType ?? e.kind;
  if (typeof entry.entryType !== 'string') {
    throw new Broken(`field '${f('entryType')}' is ${describe(e.entryType)}, not a string`);
  }
  if (e.attributes !== undefined && e.attributes !== null) {
    if (typeof e.attributes === 'string') entry.attributes = e.attributes;
    else if (typeof e.attributes === 'object' && !Array.isArray(e.attributes)) entry.attributes = JSON.stringify(e.attributes);
    else throw new Broken(`field '${f('attributes')}' is ${describe(e.attributes)}, not a JSON object`);
  }
  return entry;
}

function entries(list, where) {
  if (!Array.isArray(list)) throw new Broken(`${where} is ${describe(list)}, not an array of entries`);
  return list.map((e, i) => toWitEntry(e, `${where}[${i}]`));
}

/** The WIT error for whatever a backend threw. */
function toWitError(op, e) {
  if (e instanceof Broken) return { tag: 'backend', val: `the volume's ${op} returned a malformed answer: ${e.message}` };
  if (e instanceof VolumeError || (e && typeof e === 'object' && 'kind' in e && typeof e.message === 'string')) {
    if (isErrorKind(e.kind)) return { tag: e.kind, val: String(e.message) };
    return {
      tag: 'backend',
      val: `the volume's ${op} failed with an error of unknown kind ${describe(e.kind)}: ${e.message}`,
    };
  }
  // A Node system error carries the host path in its message: report its code only.
  if (e && typeof e === 'object' && typeof e.code === 'string' && typeof e.syscall === 'string') {
    return { tag: 'backend', val: `the volume's ${op} failed: ${e.code} (${e.syscall})` };
  }
  const what = e instanceof Error ? `${e.name}: ${e.message}` : describe(e);
  return { tag: 'backend', val: `the volume's ${op} threw ${what}` };
}

/**
 * The `volume` resource handed to the component: one per mount, wrapping a backend.
 * Every method returns the WIT `result` explicitly (`{tag: 'ok' | 'err', val}`), so
 * nothing a backend does is thrown through the component.
 */
export class WitVolume {
  /** @param {object} backend an object with the volume methods (see docs/embedding.md) */
  constructor(backend) {
    /** The backend answering this volume's calls. */
    this.backend = backend;
  }

  run(op, f) {
    try {
      return { tag: 'ok', val: f() };
    } catch (e) {
      return { tag: 'err', val: toWitError(op, e) };
    }
  }

  /** The backend's storage identity, when it reports a well-formed one. */
  identity() {
    try {
      const id = this.backend.identity?.();
      if (id && typeof id.storage === 'string' && Array.isArray(id.root) && id.root.every((t) => typeof t === 'string')) {
        return { storage: id.storage, root: [...id.root] };
      }
    } catch {
      // No identity: treated as distinct from every other volume.
    }
    return undefined;
  }

  stat(path) {
    return this.run('stat', () => toWitEntry(this.backend.stat(path), 'the entry'));
  }

  listDir(path) {
    return this.run('list', () => entries(this.backend.list(path), 'the list'));
  }

  walk(path, maxEntries) {
    return this.run('walk', () => {
      const w = this.backend.walk(path, maxEntries);
      if (w === null || typeof w !== 'object') throw new Broken(`the walk is ${describe(w)}, not {entries, truncated}`);
      if (typeof w.truncated !== 'boolean') throw new Broken(`field 'truncated' is ${describe(w.truncated)}, not a boolean`);
      return { entries: entries(w.entries, 'entries'), truncated: w.truncated };
    });
  }

  /**
   * `walk`, packed (WIT `walk-packed`): the entries of the backend's `walk` (checked
   * and converted as `walk` does, with its errors) as columns — paths in one string,
   * sizes, times and flags as numbers, entry types and attributes only where an entry
   * has its own — so the component takes a walk of 100,000 entries in a few copies.
   */
  walkPacked(path, maxEntries) {
    const w = this.walk(path, maxEntries);
    if (w.tag === 'err') return w;
    const es = w.val.entries;
    const n = es.length;
    const pathLens = new Uint32Array(n);
    const sizes = new BigUint64Array(n);
    const modifiedMs = new BigUint64Array(n);
    const entryFlags = new Uint8Array(n);
    const entryTypes = [];
    const attributes = [];
    es.forEach((e, i) => {
      pathLens[i] = Buffer.byteLength(e.path, 'utf8');
      sizes[i] = e.size;
      const dir = e.kind === 'directory';
      entryFlags[i] = (dir ? 1 : 0) | (e.readOnly ? 2 : 0) | (e.modifiedMs !== undefined ? 4 : 0);
      if (e.modifiedMs !== undefined) modifiedMs[i] = e.modifiedMs;
      if (e.entryType !== (dir ? 'directory' : 'file')) entryTypes.push([i, e.entryType]);
      if (e.attributes !== undefined) attributes.push([i, e.attributes]);
    });
    return {
      tag: 'ok',
      val: {
        paths: es.map((e) => e.path).join(''),
        pathLens,
        sizes,
        modifiedMs,
        entryFlags,
        entryTypes,
        attributes,
        truncated: w.val.truncated,
      },
    };
  }

  read(path, offset, len) {
    return this.run('read', () => {
      const want = len > BigInt(MAX_READ_CALL_BYTES) ? MAX_READ_CALL_BYTES : Number(len);
      const off = offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(offset);
      const data = this.backend.read(path, off, want);
      if (!(data instanceof Uint8Array)) throw new Broken(`the data is ${describe(data)}, not a Uint8Array`);
      if (data.length > want) throw new Broken(`${data.length} bytes were returned when at most ${want} were asked for`);
      return data;
    });
  }

  /**
   * `stat` and `read` in one call (WIT 0.5.0 `stat-read`): the entry and, for a file
   * with content, up to `len` bytes from `offset`, never past its size. A backend
   * with its own `statRead(path, offset, len)` (returning `{entry, data}`) answers it;
   * otherwise it is the backend's `stat`, then its `read`.
   */
  statRead(path, offset, len) {
    if (typeof this.backend.statRead !== 'function') {
      // The backend's stat, then its read: each failure is that method's, as when
      // they were two calls.
      const st = this.stat(path);
      if (st.tag === 'err') return st;
      const entry = st.val;
      const off = offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(offset);
      const want = len > BigInt(MAX_READ_CALL_BYTES) ? MAX_READ_CALL_BYTES : Number(len);
      const n = Math.min(want, Math.max(0, Number(entry.size) - off));
      const contentless = entry.entryType === 'symlink' || entry.entryType === 'special';
      if (entry.kind !== 'file' || contentless || n === 0) return { tag: 'ok', val: { entry, data: new Uint8Array(0) } };
      const rd = this.read(path, offset, BigInt(n));
      if (rd.tag === 'err') return rd;
      return { tag: 'ok', val: { entry, data: rd.val } };
    }
    return this.run('stat-read', () => {
      const want = len > BigInt(MAX_READ_CALL_BYTES) ? MAX_READ_CALL_BYTES : Number(len);
      const off = offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(offset);
      const r = this.backend.statRead(path, off, want);
      if (r === null || typeof r !== 'object') throw new Broken(`the answer is ${describe(r)}, not {entry, data}`);
      const entry = toWitEntry(r.entry, 'the entry');
      const data = r.data ?? new Uint8Array(0);
      if (!(data instanceof Uint8Array)) throw new Broken(`the data is ${describe(data)}, not a Uint8Array`);
      if (data.length > want) throw new Broken(`${data.length} bytes were returned when at most ${want} were asked for`);
      return { entry, data };
    });
  }

  write(path, content, options) {
    return this.run('write', () => toWitEntry(this.backend.write(path, content, { ...options }), 'the entry'));
  }

  /**
   * Adds bytes at the end of a file, creating it when missing (WIT 0.10.0 `append`).
   * A backend with its own `append(path, content)` answers it; otherwise it is the
   * backend's `stat`, `read` of the whole file and one `write` of the old bytes and
   * the new (so a failure leaves the old content, as the backend's write does).
   */
  append(path, content) {
    if (typeof this.backend.append === 'function') {
      return this.run('append', () => toWitEntry(this.backend.append(path, content), 'the entry'));
    }
    const st = this.run('stat', () => {
      try {
        return toWitEntry(this.backend.stat(path), 'the entry');
      } catch (e) {
        if (e?.kind === 'not-found' || e?.kind === 'not-a-directory') return undefined;
        throw e;
      }
    });
    if (st.tag === 'err') return st;
    const entry = st.val;
    if (entry?.kind === 'directory') return { tag: 'err', val: { tag: 'not-a-file', val: 'is a directory' } };
    if (entry?.readOnly) return { tag: 'err', val: { tag: 'read-only', val: 'entry is read-only' } };
    const chunks = [];
    if (entry) {
      let at = 0n;
      for (;;) {
        const rd = this.read(path, at, BigInt(MAX_READ_CALL_BYTES));
        if (rd.tag === 'err') return rd;
        if (rd.val.length === 0) break;
        chunks.push(rd.val);
        at += BigInt(rd.val.length);
      }
    }
    chunks.push(content);
    return this.write(path, Buffer.concat(chunks), {});
  }

  delete(path, recursive) {
    return this.run('delete', () => {
      this.backend.delete(path, recursive);
    });
  }

  rename(source, destination, overwrite) {
    return this.run('rename', () => {
      this.backend.rename(source, destination, overwrite);
    });
  }

  createDir(path) {
    return this.run('create-dir', () => {
      if (typeof this.backend.createDir !== 'function') {
        throw new VolumeError('unsupported', 'this volume cannot create empty directories');
      }
      return toWitEntry(this.backend.createDir(path), 'the entry');
    });
  }

  /**
   * A hint that these files (`[{path, size}]`, sizes as bigint) are about to be read
   * whole; a backend may start fetching them. No answer: a backend that throws here
   * is ignored (each file's own `read` reports its failure).
   */
  prefetch(files) {
    try {
      this.backend.prefetch?.(files);
    } catch {
      // A hint only.
    }
  }
}
