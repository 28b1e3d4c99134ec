// A local directory as a volume, confined beneath its root, following the rules of
// the Rust host's `DirVolume` (host/src/volumes/dir/) and answering with the same
// messages:
//
// - paths are checked component by component (absolute, normalised, no `.`/`..`, no
//   control characters or backslash, within the length limits); `..` never leaves
//   the root because it is never accepted;
// - every component is examined with `lstat` before it is used, and symbolic links
//   are never followed, wherever they point: a link is listed (type `symlink`, size 0,
//   target not disclosed) but reading it, listing it, writing onto it or going
//   through it is `invalid-path`; files are opened with `O_NOFOLLOW`;
// - writes go to a fresh temporary file (`O_EXCL`) next to the destination, are
//   fsynced and renamed over it (hard-linked for `createOnly`), so a failed write
//   leaves the old content; appends add bytes in place (`O_APPEND | O_NOFOLLOW`, not
//   fsynced), truncating back to the old length when a write fails;
// - error messages name volume paths, never a host path.
//
// What it cannot do that the Rust volume does: Node has no `openat`, so each
// operation resolves the path from the root by name after checking every component.
// Another local process that swaps a checked directory for a link between the check
// and the use could redirect that one operation; the Rust volume holds directory
// handles and is not exposed to that race. Use the Rust host (or keep other writers
// out of the directory) where that matters.

import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createHash, randomBytes } from 'node:crypto';

import { VolumeError } from './errors.js';
import { compareBytes, isWithin, join } from './paths.js';

/** Longest volume path in bytes (as the component's path limit). */
export const MAX_PATH_BYTES = 4096;
/** Longest path component in bytes. */
export const MAX_COMPONENT_BYTES = 255;
/** Entry type of a symbolic link in listings: shown, never followed. */
export const TYPE_SYMLINK = 'symlink';
/** Entry type of a FIFO, socket or device: shown, never opened. */
export const TYPE_SPECIAL = 'special';
/** Marker in the names of temporary files of in-flight writes (hidden from listings). */
export const TEMP_MARKER = '.filestore-tmp-';
/** Age after which a leftover temporary file is removed when its directory is listed. */
export const STALE_TEMP_SECS = 600;

const NO_FOLLOW = 'this volume never follows symbolic links';
const C = fs.constants;

/** Whether a code point is a control character (Unicode Cc, as Rust's `char::is_control`). */
function isControl(cp) {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
}

function findControl(s) {
  for (const ch of s) if (isControl(ch.codePointAt(0))) return ch;
  return undefined;
}

/** Rust's `{:?}` of a char, for the messages that show one. */
function debugChar(ch) {
  const map = { '\0': '\\0', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
  if (map[ch]) return `'${map[ch]}'`;
  return `'\\u{${ch.codePointAt(0).toString(16)}}'`;
}

function isTempName(name) {
  if (!name.startsWith('.')) return false;
  const i = name.lastIndexOf(TEMP_MARKER);
  if (i < 0) return false;
  const suffix = name.slice(i + TEMP_MARKER.length);
  return suffix.length === 16 && /^[0-9a-fA-F]+$/.test(suffix);
}

function tempName(name) {
  let cut = Buffer.from(name, 'utf8').subarray(0, 200).toString('utf8').replace(/\uFFFD$/, '');
  return `.${cut}${TEMP_MARKER}${randomBytes(8).toString('hex')}`;
}

function bytes(s) {
  return Buffer.byteLength(s, 'utf8');
}

/** Maps a Node error to a typed error about `path`; never shows a host path. */
function ioError(e) {
  const m = {
    ENOENT: ['not-found', 'no such file or directory'],
    EEXIST: ['already-exists', 'already exists'],
    ENOTDIR: ['not-a-directory', 'not a directory'],
    EISDIR: ['not-a-file', 'is a directory'],
    ENOTEMPTY: ['conflict', 'directory is not empty; pass recursive=true to delete it'],
    EROFS: ['read-only', 'the underlying file system is read-only'],
    ENAMETOOLONG: ['invalid-path', 'file name is invalid or too long'],
    EXDEV: ['unsupported', 'cannot move across file systems'],
    EACCES: ['backend', 'permission denied'],
    EPERM: ['backend', 'permission denied'],
    ENOSPC: ['backend', 'no space left on the device'],
    EDQUOT: ['backend', 'no space left on the device'],
    ELOOP: ['invalid-path', `a symbolic link is in the way; ${NO_FOLLOW}`],
  }[e?.code];
  if (m) return new VolumeError(m[0], m[1]);
  return new VolumeError('backend', `i/o error (${e?.code ?? 'unknown'}${e?.syscall ? `, ${e.syscall}` : ''})`);
}

/** Runs `f`, turning any Node error into a typed one (errors about `other` name it). */
function io(f, other) {
  try {
    return f();
  } catch (e) {
    if (e instanceof VolumeError) throw e;
    throw about(ioError(e), other);
  }
}

/** The same error, naming `other` (a path other than the one the call was about). */
function about(e, other) {
  return other === undefined ? e : new VolumeError(e.kind, `${other}: ${e.message}`);
}

/** The refusal of a symbolic link where a file is written or appended. */
function linkRefused() {
  return new VolumeError('invalid-path', `is a symbolic link; ${NO_FOLLOW} and does not write through or replace them`);
}

/**
 * Refuses to write or append over `existing` unless it is a regular file: a link is
 * neither followed nor replaced, a directory is not a file, nor is a special file;
 * `createOnly` refuses any entry.
 */
function refuseToWriteOver(existing, createOnly) {
  if (existing.isSymbolicLink()) throw linkRefused();
  if (existing.isDirectory()) throw new VolumeError('not-a-file', 'is a directory');
  if (createOnly) throw new VolumeError('already-exists', 'file already exists');
  if (!existing.isFile()) throw new VolumeError('unsupported', 'not a regular file');
}

function lstatOrUndefined(p) {
  try {
    return fs.lstatSync(p, { bigint: true });
  } catch (e) {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * A local directory mounted as a volume, confined beneath its root (see the module
 * comment for the rules and the one race Node cannot close).
 */
export class DirVolume {
  /**
   * Opens `root` (which must exist and be a directory). The root itself is resolved
   * once, here, like any host path chosen by the host.
   * @param {string} root
   * @param {{readOnly?: boolean}} [options] `readOnly`: every mutation is `read-only`
   */
  constructor(root, { readOnly = false } = {}) {
    let st;
    try {
      st = fs.statSync(root);
    } catch (e) {
      if (e.code === 'ENOENT') throw new VolumeError('not-found', `${root}: the volume root does not exist`);
      throw new VolumeError('backend', `${root}: cannot open the volume root: ${e.code}`);
    }
    if (!st.isDirectory()) throw new VolumeError('not-a-directory', `${root}: the volume root is not a directory`);
    /** The resolved host path of the root. */
    this.root = fs.realpathSync(root);
    /** Whether every mutation is refused. */
    this.readOnly = readOnly;
    this.identityValue = {
      storage: `dir:${st.dev.toString(16)}`,
      root: this.root
        .split(nodePath.sep)
        .filter((c) => c.length > 0)
        .map((c) => createHash('sha256').update(c).digest().subarray(0, 8).toString('hex')),
    };
  }

  /** The device and hashed canonical root, as the Rust volume reports it. */
  identity() {
    return this.identityValue;
  }

  /** A plain directory cannot keep entry types, attributes or read-only entries. */
  keepsEntryMetadata() {
    return false;
  }

  /** Splits a volume path into checked components. */
  components(path) {
    if (bytes(path) > MAX_PATH_BYTES) {
      const head = [...path].slice(0, 60).join('');
      throw new VolumeError(
        'invalid-path',
        `path is ${bytes(path)} bytes long; the limit is ${MAX_PATH_BYTES} bytes (starts with ${JSON.stringify(head)})`,
      );
    }
    const ctl = findControl(path);
    if (ctl !== undefined) throw new VolumeError('invalid-path', `path contains the control character ${debugChar(ctl)}`);
    if (path.includes('\\')) throw new VolumeError('invalid-path', 'path contains a backslash');
    if (!path.startsWith('/')) throw new VolumeError('invalid-path', "volume paths must be absolute (start with '/')");
    const rest = path.slice(1);
    if (rest === '') return [];
    const comps = rest.split('/');
    for (const c of comps) {
      if (c === '') throw new VolumeError('invalid-path', "empty path component (repeated or trailing '/')");
      if (c === '.' || c === '..') {
        throw new VolumeError('invalid-path', `'${c}' components are not allowed; paths must be normalised`);
      }
      if (isTempName(c)) {
        throw new VolumeError(
          'invalid-path',
          `'${c}' has the shape of this volume's temporary files (\`.NAME${TEMP_MARKER}\` and 16 hex digits), which listings hide; choose another name`,
        );
      }
      if (bytes(c) > MAX_COMPONENT_BYTES) {
        throw new VolumeError('invalid-path', `a component is ${bytes(c)} bytes long; the limit is ${MAX_COMPONENT_BYTES} bytes`);
      }
    }
    return comps;
  }

  checkWritable() {
    if (this.readOnly) throw new VolumeError('read-only', 'the volume is mounted read-only');
  }

  /**
   * The host path of the directory named by `comps`, each component checked with
   * `lstat` (never followed); `create` makes missing directories. `isTarget`: the
   * last component is the directory the call is about (changes only the message).
   */
  descend(path, comps, create, isTarget) {
    let cur = this.root;
    let shown = '';
    comps.forEach((name, i) => {
      shown += `/${name}`;
      const target = isTarget && i + 1 === comps.length;
      const next = nodePath.join(cur, name);
      let st = io(() => lstatOrUndefined(next));
      if (st === undefined && create) {
        try {
          fs.mkdirSync(next);
        } catch (e) {
          if (e.code !== 'EEXIST') throw ioError(e);
        }
        st = io(() => lstatOrUndefined(next));
      }
      if (st === undefined) throw new VolumeError('not-found', 'no such file or directory');
      if (st.isSymbolicLink()) {
        const what = shown === path ? 'is a symbolic link' : `'${shown}' is a symbolic link`;
        throw new VolumeError('invalid-path', `${what}; ${NO_FOLLOW}`);
      }
      if (!st.isDirectory()) {
        if (target) throw new VolumeError('not-a-directory', 'not a directory');
        if (create) throw new VolumeError('not-a-directory', `parent '${shown}' is not a directory`);
        throw new VolumeError('not-found', `no such file or directory ('${shown}' is not a directory)`);
      }
      cur = next;
    });
    return cur;
  }

  /** The host directory holding the last component, and that component. */
  parentOf(path, comps, create) {
    const name = comps[comps.length - 1];
    return [this.descend(path, comps.slice(0, -1), create, false), name];
  }

  entry(path, st) {
    const modifiedMs = Number(st.mtimeNs / 1000000n);
    let e;
    if (st.isDirectory()) {
      e = { path, kind: 'directory', size: 0, modifiedMs, entryType: 'directory' };
    } else if (st.isFile()) {
      e = { path, kind: 'file', size: Number(st.size), modifiedMs, entryType: 'file' };
    } else {
      e = { path, kind: 'file', size: 0, modifiedMs, entryType: st.isSymbolicLink() ? TYPE_SYMLINK : TYPE_SPECIAL };
    }
    e.readOnly = this.readOnly;
    return e;
  }

  /** The addressable children of a host directory, sorted by path. */
  children(host, dirPath) {
    const out = [];
    const names = io(() => fs.readdirSync(host, { encoding: 'buffer' }));
    for (const raw of names) {
      const name = raw.toString('utf8');
      if (!Buffer.from(name, 'utf8').equals(raw)) continue; // not UTF-8
      const full = nodePath.join(host, name);
      if (isTempName(name)) {
        if (!this.readOnly) {
          try {
            const st = fs.lstatSync(full);
            if (st.isFile() && Date.now() - st.mtimeMs >= STALE_TEMP_SECS * 1000) fs.unlinkSync(full);
          } catch {
            // Gone already, or not ours to remove.
          }
        }
        continue;
      }
      if (name === '' || name === '.' || name === '..' || bytes(name) > MAX_COMPONENT_BYTES) continue;
      if (name.includes('/') || name.includes('\\') || findControl(name) !== undefined) continue;
      const child = join(dirPath, name);
      if (bytes(child) > MAX_PATH_BYTES) continue;
      let st;
      try {
        st = fs.lstatSync(full, { bigint: true });
      } catch {
        continue;
      }
      out.push(this.entry(child, st));
    }
    return out.sort((a, b) => compareBytes(a.path, b.path));
  }

  stat(path) {
    const comps = this.components(path);
    if (comps.length === 0) return this.entry('/', io(() => fs.lstatSync(this.root, { bigint: true })));
    const [dir, name] = this.parentOf(path, comps, false);
    return this.entry(path, io(() => fs.lstatSync(nodePath.join(dir, name), { bigint: true })));
  }

  list(path) {
    const comps = this.components(path);
    return this.children(this.descend(path, comps, false, true), path);
  }

  walk(path, maxEntries) {
    const comps = this.components(path);
    const top = this.descend(path, comps, false, true);
    const entries = [];
    const stack = [[path, top]];
    while (stack.length > 0) {
      const [dirPath, given] = stack.pop();
      let host = given;
      if (host === undefined) {
        try {
          host = this.descend(dirPath, this.components(dirPath), false, true);
        } catch {
          continue; // swapped, removed or unreadable since it was listed
        }
      }
      let children;
      try {
        children = this.children(host, dirPath);
      } catch (e) {
        if (given !== undefined) throw e;
        continue;
      }
      const subdirs = [];
      for (const e of children) {
        if (entries.length >= maxEntries) return { entries, truncated: true };
        if (e.kind === 'directory' && e.entryType === 'directory') subdirs.push(e.path);
        entries.push(e);
      }
      for (const d of subdirs.reverse()) stack.push([d, undefined]);
    }
    return { entries, truncated: false };
  }

  read(path, offset, len) {
    const comps = this.components(path);
    if (comps.length === 0) throw new VolumeError('not-a-file', 'is a directory');
    const [dir, name] = this.parentOf(path, comps, false);
    const full = nodePath.join(dir, name);
    let fd;
    try {
      fd = fs.openSync(full, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
    } catch (e) {
      throw this.explainLeaf(full, e);
    }
    try {
      const st = io(() => fs.fstatSync(fd));
      if (st.isDirectory()) throw new VolumeError('not-a-file', 'is a directory');
      if (!st.isFile()) throw new VolumeError('unsupported', 'not a regular file');
      const size = st.size;
      if (offset >= size || len === 0) return new Uint8Array(0);
      const want = Math.min(len, size - offset);
      const buf = Buffer.alloc(want);
      let got = 0;
      while (got < want) {
        const n = io(() => fs.readSync(fd, buf, got, want - got, offset + got));
        if (n === 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Why the last component could not be opened as a file. */
  explainLeaf(full, err) {
    let st;
    try {
      st = fs.lstatSync(full);
    } catch (e) {
      return e.code === 'ENOENT' ? new VolumeError('not-found', 'no such file or directory') : ioError(err);
    }
    if (st.isSymbolicLink()) return new VolumeError('invalid-path', `is a symbolic link; ${NO_FOLLOW}`);
    if (st.isDirectory()) return new VolumeError('not-a-file', 'is a directory');
    if (!st.isFile()) return new VolumeError('unsupported', 'not a regular file');
    return ioError(err);
  }

  createDir(path) {
    const comps = this.components(path);
    this.checkWritable();
    if (comps.length === 0) return this.stat(path);
    // Parents are created (or opened) one component at a time, never through a
    // link (`descend`); then the last one, likewise.
    const [dir, name] = this.parentOf(path, comps, true);
    const full = nodePath.join(dir, name);
    const st = io(() => lstatOrUndefined(full));
    if (st === undefined) {
      try {
        fs.mkdirSync(full);
      } catch (e) {
        // Created concurrently: fine if it is a directory (checked below).
        if (e.code !== 'EEXIST') throw ioError(e);
      }
    } else if (st.isSymbolicLink()) {
      throw new VolumeError('invalid-path', `is a symbolic link; ${NO_FOLLOW} and does not create through them`);
    }
    const made = io(() => fs.lstatSync(full, { bigint: true }));
    if (!made.isDirectory()) throw new VolumeError('already-exists', 'a file exists at this path');
    return this.entry(path, made);
  }

  /**
   * Where a write or an append of `path` lands: its parent directory (resolved and
   * created, confined), its name, the full host path and what is there now (an
   * `lstat`, or undefined).
   */
  writeTarget(path) {
    const comps = this.components(path);
    this.checkWritable();
    if (comps.length === 0) throw new VolumeError('not-a-file', 'cannot write the volume root');
    const [dir, name] = this.parentOf(path, comps, true);
    const full = nodePath.join(dir, name);
    return { dir, name, full, existing: io(() => lstatOrUndefined(full)) };
  }

  write(path, content, options = {}) {
    const { dir, name, full, existing } = this.writeTarget(path);
    if (existing) refuseToWriteOver(existing, options.createOnly);
    let tmp;
    let fd;
    for (let attempt = 0; attempt < 16 && fd === undefined; attempt++) {
      tmp = nodePath.join(dir, tempName(name));
      try {
        fd = fs.openSync(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o666);
      } catch (e) {
        if (e.code !== 'EEXIST') throw ioError(e);
      }
    }
    if (fd === undefined) throw new VolumeError('backend', 'cannot create a temporary file after 16 attempts');
    const discard = (e) => {
      try {
        fs.unlinkSync(tmp);
      } catch {
        // Already gone.
      }
      return e;
    };
    let st;
    try {
      if (existing) fs.fchmodSync(fd, Number(existing.mode) & 0o777);
      let off = 0;
      while (off < content.length) off += fs.writeSync(fd, content, off, content.length - off);
      fs.fsyncSync(fd);
      st = fs.fstatSync(fd, { bigint: true });
    } catch (e) {
      fs.closeSync(fd);
      throw discard(ioError(e));
    }
    fs.closeSync(fd);
    if (options.createOnly) {
      try {
        fs.linkSync(tmp, full);
        discard();
      } catch (e) {
        if (e.code === 'EEXIST') throw discard(new VolumeError('already-exists', 'file already exists'));
        if (lstatOrUndefined(full)) throw discard(new VolumeError('already-exists', 'file already exists'));
        try {
          fs.renameSync(tmp, full);
        } catch (e2) {
          throw discard(ioError(e2));
        }
      }
    } else {
      try {
        fs.renameSync(tmp, full);
      } catch (e) {
        throw discard(ioError(e));
      }
    }
    syncDir(dir);
    return this.entry(path, st);
  }

  /**
   * Adds `content` at the end of the file in place (`O_APPEND | O_NOFOLLOW`), created
   * when missing, as the Rust host's `DirVolume` does: refused as a write is for a
   * link, a directory or a special file; not fsynced (as bash's `>>`); a failed or
   * short write is undone by truncating back to the old length (a file the append
   * created is removed); a file with another hard link is replaced whole, as a write
   * replaces it, never changed in place.
   */
  append(path, content) {
    const { full, existing } = this.writeTarget(path);
    if (existing) {
      refuseToWriteOver(existing, false);
      if (existing.nlink > 1) {
        const old = this.read(path, 0, Number(existing.size));
        return this.write(path, Buffer.concat([old, content]), {});
      }
    }
    let fd;
    try {
      fd = fs.openSync(full, C.O_WRONLY | C.O_APPEND | C.O_CREAT | C.O_NOFOLLOW | C.O_NONBLOCK, 0o666);
    } catch (e) {
      if (e.code === 'ELOOP') throw linkRefused();
      throw ioError(e);
    }
    try {
      const before = fs.fstatSync(fd, { bigint: true });
      if (!before.isFile()) throw new VolumeError('unsupported', 'not a regular file');
      const oldLen = Number(before.size);
      try {
        let off = 0;
        while (off < content.length) off += fs.writeSync(fd, content, off, content.length - off);
      } catch (e) {
        fs.ftruncateSync(fd, oldLen);
        if (!existing && oldLen === 0) fs.unlinkSync(full);
        throw ioError(e);
      }
      return this.entry(path, fs.fstatSync(fd, { bigint: true }));
    } finally {
      fs.closeSync(fd);
    }
  }

  delete(path, recursive) {
    const comps = this.components(path);
    this.checkWritable();
    if (comps.length === 0) {
      if (!recursive) throw new VolumeError('conflict', 'directory is not empty; pass recursive=true to delete it');
      this.removeContents(this.root);
      return;
    }
    const [dir, name] = this.parentOf(path, comps, false);
    const full = nodePath.join(dir, name);
    const st = io(() => fs.lstatSync(full));
    if (!st.isDirectory()) {
      io(() => fs.unlinkSync(full));
      return;
    }
    if (recursive) this.removeContents(full);
    io(() => fs.rmdirSync(full));
  }

  /** Removes everything beneath a host directory, never following a link. */
  removeContents(top) {
    // Depth first with an explicit stack, so a deep tree cannot overflow the JS
    // stack; paths are Buffers, so names that are not UTF-8 are removed too.
    const sep = Buffer.from(nodePath.sep);
    const stack = [[Buffer.from(top), false]];
    while (stack.length > 0) {
      const [dir, listed] = stack.pop();
      if (listed) {
        if (stack.length > 0) io(() => fs.rmdirSync(dir));
        continue;
      }
      stack.push([dir, true]);
      for (const raw of io(() => fs.readdirSync(dir, { encoding: 'buffer' }))) {
        const full = Buffer.concat([dir, sep, raw]);
        const st = io(() => fs.lstatSync(full));
        if (st.isDirectory()) stack.push([full, false]);
        else io(() => fs.unlinkSync(full));
      }
    }
  }

  rename(from, to, overwrite) {
    const fromComps = this.components(from);
    const toComps = (() => {
      try {
        return this.components(to);
      } catch (e) {
        throw about(e, to);
      }
    })();
    this.checkWritable();
    if (fromComps.length === 0) throw new VolumeError('invalid-argument', 'cannot move the volume root');
    if (toComps.length === 0) throw new VolumeError('already-exists', `${to}: destination is the volume root`);
    const [fromDir, fromName] = this.parentOf(from, fromComps, false);
    const fromFull = nodePath.join(fromDir, fromName);
    const fromSt = io(() => fs.lstatSync(fromFull));
    if (from === to) return;
    if (isWithin(to, from)) throw new VolumeError('invalid-argument', `${to}: cannot move '${from}' into itself`);
    let toDir;
    try {
      toDir = this.parentOf(to, toComps, true)[0];
    } catch (e) {
      throw about(e, to);
    }
    const toName = toComps[toComps.length - 1];
    const toFull = nodePath.join(toDir, toName);
    const toSt = io(() => lstatOrUndefined(toFull), to);
    if (toSt) {
      if (!overwrite) throw new VolumeError('already-exists', `${to}: destination exists; pass overwrite=true`);
      if (toSt.isSymbolicLink()) {
        throw new VolumeError('invalid-path', `${to}: destination is a symbolic link; ${NO_FOLLOW} and does not replace them`);
      }
      if (toSt.isDirectory()) throw new VolumeError('already-exists', `${to}: destination is a directory`);
      if (fromSt.isDirectory()) throw new VolumeError('already-exists', `${to}: destination exists`);
    }
    io(() => fs.renameSync(fromFull, toFull), to);
    syncDir(toDir);
  }
}

/** Best-effort fsync of a directory, so a rename survives a crash. */
function syncDir(dir) {
  try {
    const fd = fs.openSync(dir, C.O_RDONLY | C.O_DIRECTORY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Best effort.
  }
}
