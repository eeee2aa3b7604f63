// A stand-in for the system's browser opener, for web.test.mjs: askcore-mcp
// runs ASKCORE_BROWSER with the page's URL as its last argument; this
// hands the URL to the test (argv[2], a local address it listens on), which
// opens it in Chromium.
const [, , report, url] = process.argv;
await fetch(report, { method: "POST", body: url });
