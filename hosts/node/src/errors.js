// Typed errors of the Node host: the WIT `types.error` cases, plus `trap` for a
// session whose component instance trapped (it refuses every later call).

/**
 * The error kinds of the WIT `types.error` variant, in WIT order. A volume or tool
 * handler that throws a {@link VolumeError} or {@link ToolError} picks one of these.
 * `python/tests/test_error_kinds.py` checks that they are exactly the WIT's cases.
 */
export const ERROR_KINDS = Object.freeze([
  'not-found',
  'not-a-file',
  'not-a-directory',
  'already-exists',
  'read-only',
  'invalid-path',
  'invalid-pattern',
  'invalid-argument',
  'too-large',
  'conflict',
  'unsupported',
  'limit-exceeded',
  'unauthorized',
  'backend',
]);

const KINDS = new Set(ERROR_KINDS);

/** Whether `kind` is one of {@link ERROR_KINDS}. */
export function isErrorKind(kind) {
  return typeof kind === 'string' && KINDS.has(kind);
}

/**
 * What a session call failed with: `kind` is a WIT error case (`not-found`,
 * `invalid-path`, `read-only`...) or `trap` (the component instance trapped; the
 * session is poisoned and refuses further calls: close it and open a new one).
 * `message` names what was wrong (path, parameter, limit), as the component wrote it.
 */
export class FilestoreError extends Error {
  /**
   * @param {string} kind the WIT error case, or `trap`
   * @param {string} message what was wrong
   */
  constructor(kind, message) {
    super(message);
    /** The WIT error case (`not-found`...) or `trap`. */
    this.kind = kind;
    this.name = 'FilestoreError';
  }

  /** Whether the session that threw this is unusable (a trap). */
  get poisonsSession() {
    return this.kind === 'trap';
  }

  /** `error[KIND]: message`, as the `filestore` CLI prints errors. */
  toString() {
    return `error[${this.kind}]: ${this.message}`;
  }
}

/**
 * Thrown by a volume backend to answer with a typed error. The message should not
 * repeat the path: the component puts the (virtual) path in front of it.
 */
export class VolumeError extends Error {
  /**
   * @param {string} kind one of {@link ERROR_KINDS}
   * @param {string} message what was wrong, without the path
   */
  constructor(kind, message) {
    super(message);
    /** One of {@link ERROR_KINDS}. */
    this.kind = kind;
    this.name = 'VolumeError';
  }
}

/** Thrown by a tool handler to fail a call with a typed error. */
export class ToolError extends Error {
  /**
   * @param {string} kind one of {@link ERROR_KINDS}
   * @param {string} message what was wrong
   */
  constructor(kind, message) {
    super(message);
    /** One of {@link ERROR_KINDS}. */
    this.kind = kind;
    this.name = 'ToolError';
  }
}
