/**
 * Node's own modules that only cold paths use (files, streams, compression, V8 flags), loaded on
 * first use with `require`. An ES `import` of `node:fs`, `node:util` or `node:v8` builds that
 * module's whole ES facade at import time, which loads Node's stream, readline, worker and
 * inspector internals: measured as whole processes, about a quarter of what importing core cost
 * (issue 18 §4). `require` of a built-in returns its exports without the facade, and only what a
 * caller touches is loaded.
 */
import type * as Fs from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as Stream from 'node:stream';
import type * as StreamPromises from 'node:stream/promises';
import type * as V8 from 'node:v8';
import type * as Zlib from 'node:zlib';

// made on first use too: the first `createRequire` of a process sets up part of Node's CommonJS
// loader, ~0.3-1.3 ms of what importing core cost (decision 110)
let load: NodeJS.Require | undefined;

/** A getter of one built-in module, required on its first call. */
function onFirstUse<Module>(id: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    load ??= createRequire(import.meta.url);
    loaded ??= load(id) as Module;
    return loaded;
  };
}

/** `node:fs`, loaded on first use. @internal */
export const nodeFs = onFirstUse<typeof Fs>('node:fs');
/** `node:fs/promises`, loaded on first use. @internal */
export const nodeFsPromises = onFirstUse<typeof FsPromises>('node:fs/promises');
/** `node:stream`, loaded on first use. @internal */
export const nodeStream = onFirstUse<typeof Stream>('node:stream');
/** `node:stream/promises`, loaded on first use. @internal */
export const nodeStreamPromises = onFirstUse<typeof StreamPromises>('node:stream/promises');
/** `node:v8`, loaded on first use. @internal */
export const nodeV8 = onFirstUse<typeof V8>('node:v8');
/** `node:zlib`, loaded on first use. @internal */
export const nodeZlib = onFirstUse<typeof Zlib>('node:zlib');
