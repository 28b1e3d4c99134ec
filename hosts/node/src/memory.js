// An in-memory volume, answering as the Rust host's `MemoryVolume` does (same rules,
// same messages): files in a map, directories implied by file paths, and empty
// directories (`createDir`) kept as a marker key `dir/` (no content; a path never
// ends in `/`, so a marker cannot collide with a file). A marker makes its directory
// exist like a file beneath it would, and goes with it on delete and rename.

import { VolumeError } from './errors.js';
import { compareBytes, isWithin, parent, prefixOf } from './paths.js';

let nextStorage = 1;

/** Whether `key` is an empty-directory marker (`/a/b/` for `/a/b`). */
function isMarker(key) {
  return key.length > 1 && key.endsWith('/');
}

/**
 * An in-memory volume: `/scratch`-like storage, tool results, tests. Files live in a
 * map; a directory exists while a file lies beneath it. Entries keep the entry type,
 * attributes and read-only flag a write asks for (the tool-results volume needs them).
 */
export class MemoryVolume {
  /** @param {Record<string, string|Uint8Array>} [files] initial files by volume path */
  constructor(files = {}) {
    /** @type {Map<string, {content: Uint8Array, modifiedMs: number, readOnly: boolean, entryType?: string, attributes?: string}>} */
    this.files = new Map();
    this.storage = `mem:js-${nextStorage++}`;
    for (const [p, c] of Object.entries(files)) this.insert(p, c);
  }

  /** Adds a file (a set-up helper); `content` is text or bytes. Returns the volume. */
  insert(path, content) {
    const p = path.startsWith('/') ? path : `/${path}`;
    this.write(p, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, {});
    return this;
  }

  /** Keys beneath `dir`, in byte order. */
  under(dir) {
    const prefix = prefixOf(dir);
    return [...this.files.keys()].filter((k) => k.startsWith(prefix)).sort(compareBytes);
  }

  dirExists(dir) {
    if (dir === '/') return true;
    const prefix = prefixOf(dir);
    for (const k of this.files.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  checkNoFileParent(path) {
    for (let d = parent(path); d !== undefined; d = parent(d)) {
      if (this.files.has(d)) throw new VolumeError('not-a-directory', `parent '${d}' is a file`);
    }
  }

  static entry(path, f) {
    return {
      path,
      kind: 'file',
      size: f.content.length,
      modifiedMs: f.modifiedMs,
      readOnly: f.readOnly,
      entryType: f.entryType ?? 'file',
      attributes: f.attributes,
    };
  }

  static directory(path) {
    return { path, kind: 'directory', size: 0, readOnly: false, entryType: 'directory' };
  }

  /** Every volume made by this constructor is distinct storage. */
  identity() {
    return { storage: this.storage, root: [] };
  }

  /** Memory volumes keep entry types, attributes and read-only entries. */
  keepsEntryMetadata() {
    return true;
  }

  stat(path) {
    const f = this.files.get(path);
    if (f) return MemoryVolume.entry(path, f);
    if (this.dirExists(path)) return MemoryVolume.directory(path);
    throw new VolumeError('not-found', 'no such file or directory');
  }

  list(path) {
    if (this.files.has(path)) throw new VolumeError('not-a-directory', 'not a directory');
    if (!this.dirExists(path)) throw new VolumeError('not-found', 'no such file or directory');
    const prefix = prefixOf(path);
    const out = [];
    const seen = new Set();
    for (const k of this.under(path)) {
      const rest = k.slice(prefix.length);
      if (rest === '') continue; // the listed directory's own marker
      const i = rest.indexOf('/');
      if (i < 0) {
        out.push(MemoryVolume.entry(k, this.files.get(k)));
      } else {
        // `a/x` and `a.txt` sort between `a/` (a marker) and `a/y`: remember them all.
        const d = prefix + rest.slice(0, i);
        if (!seen.has(d)) {
          seen.add(d);
          out.push(MemoryVolume.directory(d));
        }
      }
    }
    return out;
  }

  walk(path, maxEntries) {
    if (this.files.has(path)) throw new VolumeError('not-a-directory', 'not a directory');
    if (!this.dirExists(path)) throw new VolumeError('not-found', 'no such file or directory');
    const prefix = prefixOf(path);
    const entries = [];
    const seen = new Set();
    for (const k of this.under(path)) {
      const rest = k.slice(prefix.length);
      if (rest === '') continue;
      let idx = 0;
      for (let i = rest.indexOf('/', idx); i >= 0; i = rest.indexOf('/', idx)) {
        const d = prefix + rest.slice(0, i);
        if (!seen.has(d)) {
          seen.add(d);
          if (entries.length >= maxEntries) return { entries, truncated: true };
          entries.push(MemoryVolume.directory(d));
        }
        idx = i + 1;
      }
      if (isMarker(k)) continue; // stands for its directory, emitted above
      if (entries.length >= maxEntries) return { entries, truncated: true };
      entries.push(MemoryVolume.entry(k, this.files.get(k)));
    }
    return { entries, truncated: false };
  }

  read(path, offset, len) {
    const f = this.files.get(path);
    if (f) {
      const start = Math.min(offset, f.content.length);
      const end = Math.min(start + len, f.content.length);
      return f.content.slice(start, end);
    }
    if (this.dirExists(path)) throw new VolumeError('not-a-file', 'is a directory');
    throw new VolumeError('not-found', 'no such file or directory');
  }

  write(path, content, options = {}) {
    if (path === '/') throw new VolumeError('not-a-file', 'cannot write the volume root');
    if (this.dirExists(path)) throw new VolumeError('not-a-file', 'is a directory');
    this.checkNoFileParent(path);
    const existing = this.files.get(path);
    if (existing) {
      if (options.createOnly) throw new VolumeError('already-exists', 'file already exists');
      if (existing.readOnly) throw new VolumeError('read-only', 'entry is read-only');
    }
    const f = {
      content: Uint8Array.from(content),
      modifiedMs: Date.now(),
      readOnly: Boolean(options.readOnly),
      entryType: options.entryType,
      attributes: options.attributes,
    };
    this.files.set(path, f);
    return MemoryVolume.entry(path, f);
  }

  /** Adds `content` at the end of the file (created when missing), keeping its type and attributes. */
  append(path, content) {
    const f = this.files.get(path);
    if (!f) return this.write(path, content, {});
    if (f.readOnly) throw new VolumeError('read-only', 'entry is read-only');
    const grown = new Uint8Array(f.content.length + content.length);
    grown.set(f.content, 0);
    grown.set(content, f.content.length);
    f.content = grown;
    f.modifiedMs = Date.now();
    return MemoryVolume.entry(path, f);
  }

  delete(path, recursive) {
    const f = this.files.get(path);
    if (f) {
      if (f.readOnly) throw new VolumeError('read-only', 'entry is read-only');
      this.files.delete(path);
      return;
    }
    if (path === '/' && !recursive) {
      throw new VolumeError('conflict', 'directory is not empty; pass recursive=true');
    }
    if (!this.dirExists(path)) throw new VolumeError('not-found', 'no such file or directory');
    const marker = `${path}/`;
    if (this.under(path).every((k) => k === marker)) {
      this.files.delete(marker); // an empty directory: only its marker
      return;
    }
    if (!recursive) {
      throw new VolumeError('conflict', 'directory is not empty; pass recursive=true to delete it');
    }
    const keys = this.under(path);
    const ro = keys.find((k) => this.files.get(k).readOnly);
    if (ro !== undefined) throw new VolumeError('read-only', `${ro}: entry is read-only`);
    for (const k of keys) this.files.delete(k);
  }

  rename(from, to, overwrite) {
    if (from === to) return;
    if (isWithin(to, from)) {
      throw new VolumeError('invalid-argument', `cannot move '${from}' into itself`);
    }
    const toIsDir = this.dirExists(to);
    const f = this.files.get(from);
    if (f) {
      if (f.readOnly) throw new VolumeError('read-only', 'entry is read-only');
      if (toIsDir) throw new VolumeError('already-exists', `${to}: destination is a directory`);
      const existing = this.files.get(to);
      if (existing) {
        if (!overwrite) throw new VolumeError('already-exists', `${to}: destination exists; pass overwrite=true`);
        if (existing.readOnly) throw new VolumeError('read-only', `${to}: entry is read-only`);
      }
      this.checkNoFileParentNamed(to);
      this.files.delete(from);
      this.files.set(to, f);
      return;
    }
    if (!this.dirExists(from) || from === '/') {
      throw new VolumeError('not-found', 'no such file or directory');
    }
    if (this.files.has(to) || toIsDir) throw new VolumeError('already-exists', `${to}: destination exists`);
    this.checkNoFileParentNamed(to);
    const moved = this.under(from);
    const ro = moved.find((k) => this.files.get(k).readOnly);
    if (ro !== undefined) throw new VolumeError('read-only', `${ro}: entry is read-only`);
    for (const k of moved) {
      const file = this.files.get(k);
      this.files.delete(k);
      this.files.set(to + k.slice(from.length), file);
    }
  }

  createDir(path) {
    if (path === '/') return MemoryVolume.directory('/');
    if (this.files.has(path)) throw new VolumeError('already-exists', 'a file exists at this path');
    this.checkNoFileParent(path);
    // Like `mkdir -p`, every missing ancestor becomes a directory of its own too.
    // (All found before any is added: a marker makes its ancestors exist.)
    const missing = [];
    for (let d = path; d !== undefined && d !== '/' && !this.dirExists(d); d = parent(d)) missing.push(d);
    for (const d of missing) {
      this.files.set(`${d}/`, { content: new Uint8Array(0), modifiedMs: Date.now(), readOnly: false });
    }
    return MemoryVolume.directory(path);
  }

  /** As {@link checkNoFileParent}, for a path other than the one asked about. */
  checkNoFileParentNamed(path) {
    try {
      this.checkNoFileParent(path);
    } catch (e) {
      throw new VolumeError(e.kind, `${path}: ${e.message}`);
    }
  }
}
