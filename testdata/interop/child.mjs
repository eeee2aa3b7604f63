// The binary under test as a child process, for the interop suites of
// cmd/askcore-acp and cmd/askcore-mcp: its flags, its stderr, its exit,
// and waiting for any of them with a deadline that says what it waited
// for and what the binary wrote on stderr.

// engineArgs passes ASKCORE_ENGINE (wasm|native), when set, as --engine.
export const engineArgs = process.env.ASKCORE_ENGINE ? ["--engine", process.env.ASKCORE_ENGINE] : [];

// EXIT_BOUND_MS is how long a suite lets the binary take from a signal to
// its exit (Go's signaltest.ExitBound). The binaries document 2 s, which
// their own timers enforce; a test's clock also counts the machine's load
// (askcore-acp took 2.86 s after SIGTERM in a CI run beside two loads), so
// what the bound must catch is a binary that waits on something no timer
// ends, and that one never exits at all. The tests log what they measured.
export const EXIT_BOUND_MS = 10_000;

// withTimeout settles as promise does, or rejects after ms naming what it
// waited for and quoting stderr() (the binary's stderr so far). Only a
// failing test waits that long: a loaded machine makes a suite slower,
// never red.
export function withTimeout(promise, ms, what, stderr = () => "") {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms; stderr:\n${stderr()}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// logOf collects a child's stderr stream: text() is all of it so far;
// match(re, what) resolves with the first match of re, waiting at most ms
// for it.
export function logOf(stream, ms) {
  let text = "";
  const waiters = [];
  stream?.on("data", (d) => {
    text += d;
    for (const w of [...waiters]) {
      const m = w.re.exec(text);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const log = {
    text: () => text,
    match(re, what) {
      const m = re.exec(text);
      if (m) return Promise.resolve(m);
      return withTimeout(new Promise((resolve) => waiters.push({ re, resolve })), ms, what, log.text);
    },
  };
  return log;
}

// exitOf resolves when child exits, with its code, its signal and when
// (Date.now()); it rejects when the child could not be spawned.
export function exitOf(child) {
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
}
