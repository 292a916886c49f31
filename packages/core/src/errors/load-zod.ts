import { createRequire } from 'node:module';
import type * as Zod from 'zod';

/** zod's `z` namespace. */
export type ZodNamespace = typeof Zod.z;

let loaded: typeof Zod | undefined;

/**
 * zod, loaded on first use rather than at import: importing zod's module graph is most of what
 * importing core would cost a process that never validates (a serverless cold start).
 * `require` of an ES module is synchronous on Node >= 22 (zod also ships CommonJS); zod's classes
 * check `instanceof` by trait, so its schemas work with a copy imported elsewhere.
 * @returns zod's `z`
 * @internal
 */
export function zod(): ZodNamespace {
  if (loaded === undefined) loaded = createRequire(import.meta.url)('zod') as typeof Zod;
  return loaded.z;
}

/**
 * A schema (or any object) built on first use: reads, calls and `instanceof` reach the real one,
 * built once with zod then. Lets a module export a schema constant without loading zod at import.
 * @param build - builds the object from zod's `z` (called at most once)
 * @returns a stand-in with the built object's type
 * @internal
 */
export function lazyZodSchema<T extends object>(build: (z: ZodNamespace) => T): T {
  let real: T | undefined;
  const target = (): T => {
    if (real === undefined) real = build(zod());
    return real;
  };
  // methods bound once each: `Schema.safeParse(x)` must run with the real schema as `this`
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy({} as T, {
    get(_stand, key) {
      const object = target();
      const value = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      let method = bound.get(key);
      if (method === undefined || (method as { original?: unknown }).original !== value) {
        method = Object.assign((value as (...args: unknown[]) => unknown).bind(object), {
          original: value,
        });
        bound.set(key, method);
      }
      return method;
    },
    has: (_stand, key) => Reflect.has(target(), key),
    set: (_stand, key, value) => Reflect.set(target(), key, value),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_stand, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // the stand-in has no such property: a proxy may only report configurable ones
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}
