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

const load = createRequire(import.meta.url);

let fs: typeof Fs | undefined;
let fsPromises: typeof FsPromises | undefined;
let stream: typeof Stream | undefined;
let streamPromises: typeof StreamPromises | undefined;
let v8: typeof V8 | undefined;
let zlib: typeof Zlib | undefined;

/** `node:fs`, loaded on first use. @internal */
export function nodeFs(): typeof Fs {
  fs ??= load('node:fs') as typeof Fs;
  return fs;
}

/** `node:fs/promises`, loaded on first use. @internal */
export function nodeFsPromises(): typeof FsPromises {
  fsPromises ??= load('node:fs/promises') as typeof FsPromises;
  return fsPromises;
}

/** `node:stream`, loaded on first use. @internal */
export function nodeStream(): typeof Stream {
  stream ??= load('node:stream') as typeof Stream;
  return stream;
}

/** `node:stream/promises`, loaded on first use. @internal */
export function nodeStreamPromises(): typeof StreamPromises {
  streamPromises ??= load('node:stream/promises') as typeof StreamPromises;
  return streamPromises;
}

/** `node:v8`, loaded on first use. @internal */
export function nodeV8(): typeof V8 {
  v8 ??= load('node:v8') as typeof V8;
  return v8;
}

/** `node:zlib`, loaded on first use. @internal */
export function nodeZlib(): typeof Zlib {
  zlib ??= load('node:zlib') as typeof Zlib;
  return zlib;
}
