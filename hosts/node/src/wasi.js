// The WASI the component links, granted as nothing: the Rust standard library in the
// component imports a few `wasi:cli`, `wasi:io` and `wasi:random` interfaces, and this
// module satisfies them the way the Rust host's empty `WasiCtx` does — no environment
// variables, no arguments, no stdin, stdout and stderr that lead nowhere (stderr is
// kept, bounded, to explain a trap: a panicking component writes its message there).
// The shell (`filestore_execute`) imports `wasi:clocks` for its timeouts; as in the Rust
// host (host/src/clocks.rs) they are coarse: the monotonic clock moves in 10 ms steps
// from 0 at the session's start, the wall clock in whole seconds.
//
// Why not `@bytecodealliance/preview2-shim`: its Node implementation hands the
// component the host's whole `process.env` and `process.argv`, writes its stdout and
// stderr to the host's, and implements `wasi:cli/exit` as `process.exit()` — a
// component calling exit would end the host process and every other session. None of
// that is acceptable for a sandbox, so this host ships its own ~100 lines instead.

import { randomBytes } from 'node:crypto';

/** Bytes of a session's stderr kept to explain a trap (the end of a panic message). */
export const STDERR_KEEP_BYTES = 4096;

/** Resolution of the guest's monotonic clock, nanoseconds (the Rust host's). */
export const MONOTONIC_STEP_NS = 10_000_000n;

/** Sleeps the calling thread for `ms` milliseconds (a timer pollable's `block`). */
function sleepSync(ms) {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Thrown into the component's call when it calls `wasi:cli/exit`: the call traps. */
export class GuestExit extends Error {
  constructor(ok) {
    super(`the component called wasi:cli/exit (${ok ? 'success' : 'failure'})`);
    this.name = 'GuestExit';
  }
}

/**
 * The WASI imports of one component instance (one session), as a map from
 * interface name to implementation, plus `stderrText()` for trap messages.
 */
export function wasiImports() {
  let stderr = Buffer.alloc(0);

  class IoError {
    toDebugString() {
      return 'i/o error';
    }
  }
  class Pollable {
    /** Always ready: no stream here ever waits. */
    ready() {
      return true;
    }
    block() {}
    /** Milliseconds until ready (0: ready). */
    waitMs() {
      return 0;
    }
  }
  const start = process.hrtime.bigint();
  const elapsed = () => process.hrtime.bigint() - start;
  /** Ready once the session's (real) monotonic time reaches `deadline` ns. */
  class TimerPollable extends Pollable {
    constructor(deadline) {
      super();
      this.deadline = deadline;
    }
    ready() {
      return elapsed() >= this.deadline;
    }
    waitMs() {
      const left = this.deadline - elapsed();
      return left > 0n ? Number((left + 999_999n) / 1_000_000n) : 0;
    }
    block() {
      sleepSync(this.waitMs());
    }
  }
  /** The indices of the ready pollables, after waiting for the first to be ready. */
  function poll(list) {
    if (!list.some((p) => p.ready())) sleepSync(Math.min(...list.map((p) => p.waitMs())));
    const ready = [];
    list.forEach((p, i) => {
      if (p.ready()) ready.push(i);
    });
    return new Uint32Array(ready);
  }
  class InputStream {
    read() {
      throw { tag: 'closed' };
    }
    blockingRead() {
      throw { tag: 'closed' };
    }
    subscribe() {
      return new Pollable();
    }
  }
  class OutputStream {
    constructor(keep) {
      this.keep = keep;
    }
    checkWrite() {
      return 1n << 20n;
    }
    write(bytes) {
      if (this.keep) {
        stderr = Buffer.concat([stderr, Buffer.from(bytes)]);
        if (stderr.length > STDERR_KEEP_BYTES) stderr = stderr.subarray(stderr.length - STDERR_KEEP_BYTES);
      }
    }
    blockingWriteAndFlush(bytes) {
      this.write(bytes);
    }
    flush() {}
    blockingFlush() {}
    subscribe() {
      return new Pollable();
    }
  }
  class TerminalInput {}
  class TerminalOutput {}

  const stdin = new InputStream();
  const stdout = new OutputStream(false);
  const stderrStream = new OutputStream(true);
  const environment = {
    getEnvironment: () => [],
    getArguments: () => [],
    initialCwd: () => undefined,
  };
  const imports = {
    'wasi:cli/environment': environment,
    'wasi:cli/exit': {
      exit(status) {
        throw new GuestExit(status?.tag === 'ok');
      },
    },
    'wasi:cli/stdin': { getStdin: () => stdin },
    'wasi:cli/stdout': { getStdout: () => stdout },
    'wasi:cli/stderr': { getStderr: () => stderrStream },
    'wasi:cli/terminal-input': { TerminalInput },
    'wasi:cli/terminal-output': { TerminalOutput },
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
    'wasi:io/error': { Error: IoError },
    'wasi:io/poll': { Pollable, poll },
    'wasi:clocks/monotonic-clock': {
      now() {
        const n = elapsed();
        return n - (n % MONOTONIC_STEP_NS);
      },
      resolution: () => MONOTONIC_STEP_NS,
      subscribeInstant: (when) => new TimerPollable(when),
      subscribeDuration: (d) => new TimerPollable(elapsed() + d),
    },
    'wasi:clocks/wall-clock': {
      now: () => ({ seconds: BigInt(Math.floor(Date.now() / 1000)), nanoseconds: 0 }),
      resolution: () => ({ seconds: 1n, nanoseconds: 0 }),
    },
    'wasi:io/streams': { InputStream, OutputStream },
    'wasi:random/insecure-seed': {
      insecureSeed() {
        const b = randomBytes(16);
        return [b.readBigUInt64LE(0), b.readBigUInt64LE(8)];
      },
    },
  };
  return {
    imports,
    /** What the component wrote to stderr (its last {@link STDERR_KEEP_BYTES} bytes). */
    stderrText: () => stderr.toString('utf8'),
  };
}
