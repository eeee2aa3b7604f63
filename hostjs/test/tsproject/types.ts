// What the declarations refuse and accept, in a strict project without
// the DOM lib: compiled only (tsc fails on an unused @ts-expect-error).
import { load, errorText, HarnessError, type Core, type WasmModule, type ToolSchema } from '@askcore/askcore';
import { readFile } from 'node:fs/promises';

export async function sources(core: Core): Promise<void> {
  // @ts-expect-error a number is no source
  await load(42);
  // @ts-expect-error a path is no source: read the file, or fetch it
  await load('./askcore.wasm');
  // @ts-expect-error a URL is no source: load(fetch(url))
  await load(new URL('https://example.invalid/askcore.wasm'));
  // @ts-expect-error nor a promise of a string
  await load(Promise.resolve('askcore.wasm'));

  await load();
  await load(undefined, { maxMemoryBytes: 1 << 26 });
  await load(new Uint8Array(0));
  await load(new ArrayBuffer(0));
  await load(await readFile('askcore.wasm'));
  const m: WasmModule = core.module;
  await load(m);
  await load(fetch('https://example.invalid/askcore.wasm'));
  await load(await fetch('https://example.invalid/askcore.wasm'));
}

export function errors(core: Core): string[] {
  const out: string[] = [];
  try {
    throw new Error('x');
  } catch (err) {
    out.push(errorText(err)); // err is unknown
    out.push(errorText(err, core));
  }
  out.push(errorText(new HarnessError('ASK_FAILED', 'y')), errorText(undefined), errorText('z'));
  const plain: ToolSchema = core.schema();
  const strict: ToolSchema = core.schema({ strict: true });
  out.push(plain.name, strict.name);
  return out;
}
