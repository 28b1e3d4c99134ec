// The host side of the WIT `tool-host` interface: external tool calls, validated by
// the component, dispatched by tool `type` to JS handler functions — the Node
// counterpart of the Rust host's `ToolRegistry`, with the same rules: sources stay
// with the host (`${VAR}` / `${VAR:default}` resolved from its environment, never sent
// into the component), every handler error is typed and names the tool, and values
// taken from the environment are replaced by their `${VAR}` reference in every error.

import { ToolError, isErrorKind } from './errors.js';

/** Shortest environment value removed from error messages (as the Rust host's). */
export const MIN_REDACTED_LEN = 3;

/**
 * Tool handlers by type. A handler is a synchronous function `(request) => result`:
 * `request` holds the call the component validated (`toolName`, `toolType`,
 * `source` (resolved: `{name, type, fields}`), `callRef`, `config`, `arguments`,
 * `positional`, `statement`, `path`, `toolCallId`, `sessionId`, `claims`); the result
 * is any JSON value, which becomes the envelope's `data`. To fail, throw a
 * {@link ToolError} (`new ToolError('not-found', 'no row 7')`); anything else thrown
 * is a `backend` error naming the tool.
 */
export class ToolHost {
  /**
   * @param {object} [options]
   * @param {Record<string, Function>} [options.handlers] handlers by tool type
   * @param {(callRef: string) => 'active'|'inactive'|'missing'|{active: object[]}|{inactive: string}} [options.connections]
   *   answers `check-connection` for provider refs (default: every one is missing):
   *   `{active: [{action, title?, description, inputSchema, annotations?}]}` lists the
   *   connection's actions (schemas and annotations as JSON objects); plain
   *   `'active'` vouches for the connection without a catalog; `{inactive: reason}`
   *   says why it cannot be used
   * @param {Record<string, string|undefined>} [options.env] where `${VAR}` in sources
   *   is resolved from (default: `process.env`)
   */
  constructor({ handlers = {}, connections, env = process.env } = {}) {
    /** Handlers by tool type. */
    this.handlers = new Map(Object.entries(handlers));
    this.connections = connections ?? (() => 'missing');
    this.env = env;
  }

  /** Registers (or replaces) the handler of a tool type; returns the host. */
  register(toolType, handler) {
    this.handlers.set(toolType, handler);
    return this;
  }

  /** The registered tool types, sorted. */
  toolTypes() {
    return [...this.handlers.keys()].sort();
  }

  /** Whether this host runs tools of `toolType`. */
  handles(toolType) {
    return this.handlers.has(toolType);
  }

  /**
   * Resolves the sources of a configuration report that the tools this host runs
   * need. Throws a `ToolError('invalid-argument')` naming every missing variable.
   * @returns {Map<string, {name, type, fields, secrets}>}
   */
  resolveSources(report) {
    const needed = new Set(report.tools.filter((t) => t.runnable || this.handles(t.toolType)).map((t) => t.source).filter(Boolean));
    const out = new Map();
    const missing = [];
    for (const s of report.sources) {
      if (!needed.has(s.name)) continue;
      const secrets = [];
      const fields = {};
      for (const [k, v] of Object.entries(JSON.parse(s.fields))) {
        fields[k] = resolveValue(v, `${s.name}.${k}`, this.env, missing, secrets);
      }
      out.set(s.name, { name: s.name, type: s.sourceType, fields, secrets });
    }
    if (missing.length > 0) throw new ToolError('invalid-argument', missing.join('; '));
    return out;
  }

  /**
   * The `tool-host` imports of one session: `sessionId` replaces whatever the
   * component sends as the caller's session, and `sources()` gives the session's
   * resolved sources at call time.
   */
  imports(sessionId, sources) {
    return {
      call: (call) => this.call(call, sessionId, sources()),
      checkConnection: (callRef) => {
        try {
          const status = connectionStatus(this.connections(callRef));
          if (status) return { tag: 'ok', val: status };
          return { tag: 'err', val: { tag: 'backend', val: `connection check for '${callRef}' answered an unknown status (want 'active', 'inactive', 'missing', {active: [...]} or {inactive: reason})` } };
        } catch (e) {
          return { tag: 'err', val: { tag: 'backend', val: `connection check for '${callRef}' failed: ${e?.message ?? e}` } };
        }
      },
    };
  }

  /** Runs one call: `{tag: 'ok', val: JSON text}` or `{tag: 'err', val: WIT error}`. */
  call(call, sessionId, sources) {
    const tool = call.toolName;
    const err = (kind, message) => ({ tag: 'err', val: { tag: kind, val: message } });
    const handler = this.handlers.get(call.toolType);
    if (!handler) {
      const known = this.toolTypes();
      return err(
        'unsupported',
        `tool '${tool}' has type '${call.toolType}': type not supported by this host (it handles: ${known.length ? known.join(', ') : 'none'})`,
      );
    }
    let source;
    if (call.source !== undefined) {
      source = sources.get(call.source);
      if (!source) {
        const names = [...sources.keys()];
        return err('not-found', `tool '${tool}' names source '${call.source}', which this host has not loaded (loaded: ${names.length ? names.join(', ') : 'none'})`);
      }
    }
    const object = (what, text) => {
      const v = JSON.parse(text);
      if (v === null) return {};
      if (typeof v !== 'object' || Array.isArray(v)) throw new ToolError('invalid-argument', `tool '${tool}': ${what} is not a JSON object`);
      return v;
    };
    const redact = (m) => (source ? redactSecrets(m, source.secrets) : m);
    try {
      const request = {
        toolName: tool,
        toolType: call.toolType,
        source: source && { name: source.name, type: source.type, fields: source.fields },
        callRef: call.callRef,
        config: object('config', call.config),
        arguments: object('arguments', call.arguments),
        positional: (() => {
          const p = JSON.parse(call.positional);
          return Array.isArray(p) ? p : [];
        })(),
        statement: call.statement,
        path: call.path,
        toolCallId: call.context.toolCallId,
        sessionId,
        claims: JSON.parse(call.context.claims || 'null'),
      };
      const result = handler(request);
      if (result instanceof Promise) {
        return err('unsupported', `tool '${tool}': the handler returned a Promise; handlers of the Node host are synchronous (the component calls them synchronously)`);
      }
      const text = JSON.stringify(result === undefined ? null : result);
      return { tag: 'ok', val: text };
    } catch (e) {
      if (e instanceof ToolError && isErrorKind(e.kind)) {
        const m = e.message.includes(`'${tool}'`) ? e.message : `tool '${tool}': ${e.message}`;
        return err(e.kind, redact(m));
      }
      const what = e instanceof Error ? e.message : String(e);
      return err('backend', redact(`tool '${tool}': the handler threw: ${what}`));
    }
  }
}

/** A `connections` answer as the WIT `connection-status` variant; `undefined` if malformed. */
function connectionStatus(status) {
  if (status === 'active') return { tag: 'active', val: [] };
  if (status === 'inactive') return { tag: 'inactive', val: undefined };
  if (status === 'missing') return { tag: 'missing' };
  if (status && typeof status === 'object' && Array.isArray(status.active)) {
    const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));
    return {
      tag: 'active',
      val: status.active.map((a) => ({
        action: String(a.action),
        title: a.title ?? undefined,
        description: String(a.description ?? ''),
        inputSchema: text(a.inputSchema),
        annotations: a.annotations === undefined ? undefined : text(a.annotations),
      })),
    };
  }
  if (status && typeof status === 'object' && 'inactive' in status) {
    return { tag: 'inactive', val: status.inactive == null ? undefined : String(status.inactive) };
  }
  return undefined;
}

function resolveValue(v, at, env, missing, secrets) {
  if (typeof v === 'string') return substitute(v, at, env, missing, secrets);
  if (Array.isArray(v)) return v.map((x, i) => resolveValue(x, `${at}[${i}]`, env, missing, secrets));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveValue(x, `${at}.${k}`, env, missing, secrets)]));
  }
  return v;
}

/** `${NAME}` / `${NAME:default}` in one string; `$$` is a `$`; an unclosed `${` stays. */
function substitute(s, at, env, missing, secrets) {
  let out = '';
  let rest = s;
  for (let i = rest.indexOf('$'); i >= 0; i = rest.indexOf('$')) {
    out += rest.slice(0, i);
    const tail = rest.slice(i);
    if (tail.startsWith('$$')) {
      out += '$';
      rest = tail.slice(2);
      continue;
    }
    const end = tail.startsWith('${') ? tail.indexOf('}', 2) : -1;
    if (end < 0) {
      out += '$';
      rest = tail.slice(1);
      continue;
    }
    const body = tail.slice(2, end);
    const colon = body.indexOf(':');
    const name = colon < 0 ? body : body.slice(0, colon);
    const dflt = colon < 0 ? undefined : body.slice(colon + 1);
    const value = env[name];
    if (value !== undefined) {
      out += value;
      if (!secrets.some((x) => x.value === value)) secrets.push({ variable: name, value });
    } else if (dflt !== undefined) {
      out += dflt;
    } else {
      missing.push(`source field '${at}' references environment variable '${name}', which is not set`);
    }
    rest = tail.slice(end + 1);
  }
  return out + rest;
}

/** `message` with every resolved value (as written or percent-encoded) replaced by its `${VAR}`. */
function redactSecrets(message, secrets) {
  let out = message;
  const sorted = secrets.filter((s) => [...s.value].length >= MIN_REDACTED_LEN).sort((a, b) => b.value.length - a.value.length);
  for (const s of sorted) {
    const encoded = encodeURIComponent(s.value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    for (const form of [s.value, encoded]) out = out.split(form).join(`\${${s.variable}}`);
  }
  return out;
}
