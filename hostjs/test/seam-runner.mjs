// Runs one case of the seam corpus (testdata/seam, see its README.md)
// through the JS seam: the model's argument text goes to
// askUserQuestionTool(...).execute, a scripted provider does what the case
// says, and the result is the tool result as NAME.out holds it. No Node
// import: the Chromium page runs this file too.

/**
 * A core whose calls (counted from arm()) fault on the n-th one, as a trap
 * of the engine would: n=1 is the seam's normalize, n=2 the provider's first
 * call to the core.
 * @param {any} core
 * @param {new (message: string) => Error} HostFaultError
 */
export function trapping(core, HostFaultError) {
  let n = 0;
  let calls = 0;
  const proxy = new Proxy(core, {
    get(target, key) {
      const v = Reflect.get(target, key, target);
      if (typeof v !== 'function') return v;
      return (/** @type {unknown[]} */ ...args) => {
        calls++;
        if (calls === n) throw new HostFaultError('wasm error: unreachable (injected by the seam corpus)');
        return v.apply(target, args);
      };
    },
  });
  return {
    core: proxy,
    /** @param {string | undefined} trap */
    arm(trap) {
      calls = 0;
      if (trap === 'normalize') n = 1;
      else if (trap === 'provider') n = 2;
      else if (!trap) n = 0;
      else throw new Error(`unknown trap ${trap}`);
    },
  };
}

/** The provider behaviours of testdata/seam/README.md. */
export const PROVIDERS = ['none', 'lines', 'picks', 'form', 'decline', 'undefined', 'throw', 'panic', 'wait', 'ignore', 'delay', 'terminal',
  'resolved', 'forged', 'stale', 'not-a-reply', 'reprompt', 'form-rounds', 'fail', 'first-reply'];

/**
 * The form-rounds provider: sends the question's MCP form and judges each
 * response in turn (question.judgeForm), as a front door's loop does.
 * @param {any} q
 * @param {unknown[]} responses
 * @param {any} delivery
 */
function formRounds(q, responses, delivery) {
  q.form({ for: 'mcp', client: delivery?.client });
  let round = 0;
  for (const response of responses ?? []) {
    const step = q.judgeForm({ response, round, for: 'mcp', delivery });
    if (step.next === 'answer') return step.answer;
    if (step.next === 'ask_again') {
      round = step.round;
      continue;
    }
    throw step.error;
  }
  throw new Error('the case ran out of responses');
}

/**
 * The provider of one surface of a first-reply case, or of a fail case.
 * @param {any} s
 */
function surfaceProvider(s) {
  return {
    /** @param {any} q @param {{signal: AbortSignal}} o */
    ask(q, { signal }) {
      switch (s.provider) {
        case 'lines':
          return { lines: s.lines };
        case 'wait':
          return new Promise((_resolve, reject) => {
            if (signal.aborted) return reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        case 'form-rounds':
          return formRounds(q, s.responses, s.delivery);
        case 'fail':
          throw q.core.fail({ situation: s.situation, detail: s.detail });
      }
      throw new Error(`unknown surface provider ${s.provider}`);
    },
  };
}

/**
 * Runs case `c` and returns "answer " + the answer's bytes or "error " + the
 * core's error bytes.
 * @param {any} api the package's exports (UserInteraction, askUserQuestionTool, HostFaultError, HarnessError, answerText)
 * @param {any} core a loaded core
 * @param {any} c the parsed NAME.case.json
 * @param {{terminal?: (core: any, stdin: string) => {ask: Function, close: () => void}}} [options]
 * @returns {Promise<string>}
 */
export async function runSeamCase(api, core, c, options = {}) {
  if (!PROVIDERS.includes(c.provider)) throw new Error(`unknown provider ${JSON.stringify(c.provider)}: teach test/seam-runner.mjs (testdata/seam/README.md says what it does)`);
  const { UserInteraction, askUserQuestionTool, HostFaultError, HarnessError, answerText } = api;
  const tr = trapping(core, HostFaultError);
  const ui = new UserInteraction(tr.core);
  const tool = askUserQuestionTool(ui);

  /** @type {() => void} */
  let markReached = () => {};
  const reached = new Promise((r) => (markReached = () => r(undefined)));

  /** @type {() => void} */
  let markAsked = () => {};
  const over = new Promise((r) => (markAsked = () => r(undefined)));

  /** @param {AbortSignal} signal */
  const aborted = (signal) =>
    new Promise((_resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });

  /** @type {(q: any, o: {signal: AbortSignal}) => unknown} */
  let ask = async (q, { signal }) => {
    markReached();
    const k = tr.core;
    switch (c.provider) {
      case 'lines':
        return { lines: c.lines };
      case 'picks':
        return { picks: c.picks };
      case 'form':
        k.elicitation(q);
        return { form: c.response };
      case 'resolved':
        return q.resolve({ lines: c.lines });
      case 'forged':
        return JSON.parse(JSON.stringify(c.answer)); // an answer the core did not write for this call
      case 'stale': {
        // The core's answer to another call (the seam's Question for it is
        // private: a second UserInteraction asks it and hands it over).
        const other = new UserInteraction(k);
        /** @type {any} */
        let otherAnswer;
        other.register((/** @type {any} */ oq) => {
          otherAnswer = oq.resolve({ lines: c.lines });
          return otherAnswer;
        });
        await other.ask(c.otherArguments);
        return otherAnswer;
      }
      case 'not-a-reply':
        if (c.value === 'date') return new Date(0);
        if (c.value === 'string') return 'sqlite';
        if (c.value === 'fail-result') return k.fail({ situation: 'declined' }); // returned, not thrown
        throw new Error(`unknown not-a-reply value ${c.value}`);
      case 'reprompt':
        q.checkLine(0, c.lines[0]); // throws the core's INVALID_ANSWER for the person
        throw new Error('reprompt: the line was accepted');
      case 'decline':
        return { decline: true };
      case 'form-rounds':
        return formRounds(q, c.responses, c.delivery);
      case 'fail':
        return surfaceProvider(c).ask(q, { signal });
      case 'first-reply':
        return api.firstReply((c.surfaces ?? []).map((/** @type {any} */ s) => ({ name: s.name, provider: surfaceProvider(s) }))).ask(q, { signal });
      case 'undefined':
        return undefined;
      case 'throw':
        throw new Error(c.error);
      case 'panic':
        throw c.error; // a string, not an Error
      case 'wait':
        return aborted(signal);
      case 'ignore':
        // Deaf to its signal: answers only once the ask is over, with an
        // answer that is not the core's. It must never reach the model.
        await over;
        return { lines: ['1'] };
      case 'delay':
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, c.delayMs);
          aborted(signal).catch((e) => {
            clearTimeout(timer);
            reject(e);
          });
        });
        return { lines: c.lines };
    }
    throw new Error(`unknown provider ${c.provider}`);
  };
  let close = () => {};
  if (c.provider === 'terminal') {
    if (typeof c.stdin !== 'string') throw new Error('a terminal case needs stdin');
    if (!options.terminal) throw new Error('no terminal provider in this runtime');
    const p = options.terminal(tr.core, c.stdin);
    close = () => p.close();
    ask = (q, o) => {
      markReached();
      return p.ask(q, o);
    };
  }

  let dispose = () => {};
  if (c.provider !== 'none') dispose = ui.register({ ask });

  const controller = new AbortController();
  const abort = () => (c.abortReason ? controller.abort(new Error(c.abortReason)) : controller.abort());
  if (c.abort === 'before') abort();
  let asked = false;
  if (c.abort === 'during' || c.dispose) {
    reached.then(() => {
      if (asked) return;
      if (c.dispose) dispose();
      if (c.abort === 'during') abort();
    });
  }

  tr.arm(c.trap);
  try {
    const answer = await tool.execute(c.arguments, { signal: controller.signal, timeoutMs: c.timeoutMs });
    return 'answer ' + answerText(answer);
  } catch (err) {
    if (!(err instanceof HarnessError) || typeof err.raw !== 'string') {
      throw new Error(`the seam rejected with something other than the core's error: ${err?.stack ?? err}`);
    }
    return 'error ' + err.raw;
  } finally {
    asked = true;
    markAsked();
    dispose();
    close();
  }
}
