// A minimal WASI preview1 for askcore's Go reactor: identical in Node and in
// browsers, no dependency, no warning, no output of its own.
//
// The guest is sandboxed: no arguments, no environment, no preopened
// directories (fd_prestat_get answers EBADF, which is how Go's syscall
// package learns there are none), no readable stdin. It gets a real clock
// (Go's garbage collector paces itself on it), real randomness (the runtime
// seeds its hash maps; the core never lets either reach its output), and
// fd 1/2 writes, which only a guest panic produces: they go to `onStderr`
// line by line. Any other WASI function the module imports answers ENOSYS.
//
// The import object is built from WebAssembly.Module.imports(module), so a
// module that imports more or fewer functions still links.

const ESUCCESS = 0;
const EBADF = 8;
const EINVAL = 28;
const ENOSYS = 52;

const FILETYPE_CHARACTER_DEVICE = 2;

/** Thrown by proc_exit: the instance is dead and must be discarded. */
export class WasiExit extends Error {
  /** @param {number} code */
  constructor(code) {
    super(`askcore.wasm called proc_exit(${code})`);
    this.name = 'WasiExit';
    this.code = code;
  }
}

/**
 * Where the clock and randomness come from. The defaults are the web
 * platform's (performance.now, crypto.getRandomValues); the Node entry point
 * passes process.hrtime.bigint and crypto.randomFillSync, which are already
 * loaded when Node starts (the first performance/webcrypto use costs a few ms).
 * @typedef {NonNullable<import('../index.js').LoadOptions['platform']>} Platform
 */

/** @type {Required<Platform>} */
const webPlatform = {
  monotonicNs: () => BigInt(Math.round(globalThis.performance.now() * 1e6)),
  realtimeNs: () => BigInt(Math.round((globalThis.performance.timeOrigin + globalThis.performance.now()) * 1e6)),
  randomFill: (b) => {
    globalThis.crypto.getRandomValues(/** @type {Uint8Array<ArrayBuffer>} */ (b));
  },
};

function defaultStderr(line) {
  console.error('askcore.wasm: ' + line);
}

/**
 * Creates the wasi_snapshot_preview1 import namespace for one instance.
 * Call `bind(memory)` once the instance exists, before `_initialize`.
 *
 * @param {WebAssembly.Module} module
 * @param {{ onStderr?: (line: string) => void, platform?: Platform }} [options]
 */
export function createWasi(module, options = {}) {
  const onStderr = options.onStderr ?? defaultStderr;
  const monotonicNs = options.platform?.monotonicNs ?? webPlatform.monotonicNs;
  const realtimeNs = options.platform?.realtimeNs ?? webPlatform.realtimeNs;
  const randomFill = options.platform?.randomFill ?? webPlatform.randomFill;
  /** @type {WebAssembly.Memory | null} */
  let memory = null;
  let pending = ''; // partial fd 1/2 line
  const decoder = new TextDecoder();

  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);

  const impl = {
    args_sizes_get(argcPtr, bufSizePtr) {
      const v = view();
      v.setUint32(argcPtr, 0, true);
      v.setUint32(bufSizePtr, 0, true);
      return ESUCCESS;
    },
    args_get() {
      return ESUCCESS;
    },
    environ_sizes_get(countPtr, bufSizePtr) {
      const v = view();
      v.setUint32(countPtr, 0, true);
      v.setUint32(bufSizePtr, 0, true);
      return ESUCCESS;
    },
    environ_get() {
      return ESUCCESS;
    },
    clock_res_get(id, resPtr) {
      if (id < 0 || id > 3) return EINVAL;
      view().setBigUint64(resPtr, 1000n, true);
      return ESUCCESS;
    },
    clock_time_get(id, _precision, timePtr) {
      let t;
      if (id === 0) t = realtimeNs();
      else if (id >= 1 && id <= 3) t = monotonicNs(); // monotonic, process/thread cputime
      else return EINVAL;
      view().setBigUint64(timePtr, t, true);
      return ESUCCESS;
    },
    random_get(ptr, len) {
      const b = bytes();
      for (let off = 0; off < len; off += 65536) {
        randomFill(b.subarray(ptr + off, ptr + Math.min(len, off + 65536)));
      }
      return ESUCCESS;
    },
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      if (fd !== 1 && fd !== 2) return EBADF;
      const v = view();
      const b = bytes();
      let total = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        pending += decoder.decode(b.subarray(ptr, ptr + len), { stream: true });
        total += len;
      }
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        onStderr(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      v.setUint32(nwrittenPtr, total, true);
      return ESUCCESS;
    },
    fd_fdstat_get(fd, statPtr) {
      if (fd > 2) return EBADF;
      const v = view();
      v.setUint8(statPtr, FILETYPE_CHARACTER_DEVICE); // fs_filetype
      v.setUint16(statPtr + 2, 0, true); // fs_flags
      v.setBigUint64(statPtr + 8, 0n, true); // fs_rights_base
      v.setBigUint64(statPtr + 16, 0n, true); // fs_rights_inheriting
      return ESUCCESS;
    },
    fd_prestat_get() {
      return EBADF; // no preopened directories: the guest has no filesystem
    },
    fd_prestat_dir_name() {
      return EBADF;
    },
    fd_close() {
      return EBADF;
    },
    fd_read(fd, _iovs, _iovsLen, nreadPtr) {
      if (fd !== 0) return EBADF;
      view().setUint32(nreadPtr, 0, true); // stdin is always at EOF
      return ESUCCESS;
    },
    sched_yield() {
      return ESUCCESS;
    },
    proc_exit(code) {
      throw new WasiExit(code);
    },
    // The guest never blocks: every clock subscription fires at once (Go only
    // sleeps here when all its goroutines wait, which the core never does),
    // and fd subscriptions fail with EBADF.
    poll_oneoff(inPtr, outPtr, nsubs, neventsPtr) {
      const v = view();
      for (let i = 0; i < nsubs; i++) {
        const sub = inPtr + i * 48;
        const ev = outPtr + i * 32;
        const tag = v.getUint8(sub + 8);
        v.setBigUint64(ev, v.getBigUint64(sub, true), true); // userdata
        v.setUint16(ev + 8, tag === 0 ? ESUCCESS : EBADF, true); // error
        v.setUint8(ev + 10, tag); // type
        v.setBigUint64(ev + 16, 0n, true); // fd_readwrite.nbytes
        v.setUint16(ev + 24, 0, true); // fd_readwrite.flags
      }
      v.setUint32(neventsPtr, nsubs, true);
      return ESUCCESS;
    },
  };

  /** @type {Record<string, Function>} */
  const ns = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'wasi_snapshot_preview1' || imp.kind !== 'function') continue;
    ns[imp.name] = Object.hasOwn(impl, imp.name) ? impl[imp.name] : () => ENOSYS;
  }

  return {
    imports: { wasi_snapshot_preview1: ns },
    /** @param {WebAssembly.Memory} mem */
    bind(mem) {
      memory = mem;
    },
  };
}
