// Serves hostjs/ on 127.0.0.1 for the demo (demo/dom.html), with
// askcore.wasm as application/wasm and the answer page's strict
// Content-Security-Policy. node demo/serve.mjs [port]
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
const csp = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  if (path === '/') {
    res.writeHead(302, { location: '/demo/dom.html' }).end();
    return;
  }
  const file = normalize(join(root, path));
  const type = types[extname(file)];
  if (!file.startsWith(root + sep) || file.includes(`${sep}node_modules${sep}`) || !type) {
    res.writeHead(404).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': type, 'content-security-policy': csp, 'cache-control': 'no-store' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`askcore DOM provider demo: http://127.0.0.1:${server.address().port}/`);
});
