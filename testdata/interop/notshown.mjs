// The not-shown rule seen from a client, for the tests of every front door
// that puts a form to one (the interop suites of cmd/askcore-acp and
// cmd/askcore-mcp, hostjs's MCP adapter): no imports, so any of them can
// use it.

// NOT_SHOWN_MS is the core's NotShownMillis: a decline or cancel that comes
// back sooner than this after the form was sent is nobody's (docs/SPEC.md,
// "Not shown").
export const NOT_SHOWN_MS = 250;

// answeredAtOnce runs ask, a question whose form the client answers the
// moment it arrives, until a try can show the not-shown rule, and resolves
// to that try's result. The host measures from sending its form to the
// reply, and on a loaded machine that can pass NOT_SHOWN_MS however fast
// the client answers: the rule then rightly calls the reply the person's,
// and the try proves nothing. So a try counts when the host judged the
// reply not shown (notShown(result)), or when its whole round as the test
// saw it, which contains the host's measure, was shorter than NOT_SHOWN_MS
// (then the host's verdict must be "not shown", and the test's assertions
// say so); any other try is made again, at most `tries` times.
export async function answeredAtOnce(ask, notShown, tries = 10) {
  const slow = [];
  for (let i = 0; i < tries; i++) {
    const t0 = performance.now();
    const result = await ask();
    const ms = performance.now() - t0;
    if (notShown(result) || ms < NOT_SHOWN_MS) return result;
    slow.push(Math.round(ms));
  }
  throw new Error(`no round came back within ${NOT_SHOWN_MS} ms in ${tries} tries (${slow.join(", ")} ms): the machine is too loaded to show the not-shown rule`);
}
