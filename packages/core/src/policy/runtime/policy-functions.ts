// The built-in functions of the policy language, one table over their three groups: values
// (value-functions.ts), detectors (detector-functions.ts) and data flow (data-flow-functions.ts).
import type { BuiltinFunction } from './builtin-function.js';
import { dataFlowFunctions } from './data-flow-functions.js';
import { detectorFunctions } from './detector-functions.js';
import { valueFunctions } from './value-functions.js';

/** @internal The built-in functions of the policy language. */
export const builtins: Readonly<Record<string, BuiltinFunction>> = {
  ...valueFunctions,
  ...detectorFunctions,
  ...dataFlowFunctions,
};
