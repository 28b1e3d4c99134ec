// Volume-relative paths as the component sends them: absolute, normalised.

/** Byte-wise (UTF-8) comparison, the order of the Rust host's sorted maps. */
export function compareBytes(a, b) {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The parent of a normalised path (`undefined` for `/`). */
export function parent(path) {
  if (path === '/') return undefined;
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** Whether `path` is `dir` or beneath it, component-wise (`/root_evil` is not in `/root`). */
export function isWithin(path, dir) {
  if (dir === '/') return true;
  return path === dir || (path.startsWith(dir) && path[dir.length] === '/');
}

/** `dir/name` for volume paths. */
export function join(dir, name) {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** The prefix every path beneath `dir` starts with. */
export function prefixOf(dir) {
  return dir === '/' ? '/' : `${dir}/`;
}
