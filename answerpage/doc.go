// Package answerpage asks a person through a local web page: the answer
// page every askcore front door shares where no form and no terminal can
// reach the person (docs/SPEC.md, "Front doors"). The page runs the same
// askcore.wasm as every other surface, through the JS host and its DOM
// provider (hostjs/dom.js), both served from files embedded in the binary.
//
// A Server is an askcore.Provider. Register it on a Service (or call its
// Ask from a provider of your own that falls back to it):
//
//	srv := answerpage.New(core, answerpage.WithBrowser(true))
//	defer srv.Close()
//	dispose, err := svc.Register(srv.Provider())
//
// Each Ask puts its call on the page's queue of pending questions (several
// agents or calls at once: each is answered once) and returns what the
// person gave there: askcore.Picks (each pick judged by the call's own core,
// Call.CheckPick, before it is accepted: the page's own check is only a
// preview) or askcore.Decline; the seam has the core resolve it. When ctx
// is done (an abort, a timeout, a disposal) the question is withdrawn from
// the page, which says why.
//
// The server starts listening on the first Ask (or Start) on 127.0.0.1 and a
// free port, and writes one line to its log (stderr by default) for each
// start:
//
//	askcore: answer at http://127.0.0.1:PORT/TOKEN/
//
// It opens that URL in the default browser only with WithBrowser(true),
// when a desktop session is detected and ASKCORE_BROWSER is not "none". It
// stops listening when nothing has been pending for a while (WithIdleStop)
// and starts again, on the same port when it can, on the next Ask.
//
// Every request is locked: the URL's unguessable token, the Host header,
// same-origin answers, a strict Content-Security-Policy. docs/SPEC.md ("The
// answer page") states each lock, docs/HARDENING.md the test that holds it.
package answerpage
