import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { GuardAction, ValidationResult, ValidatorKind } from '../model/tool-records.js';
import { errorMessage } from './error-message.js';
import { errorType } from './error-type.js';

/** What a validator function may return: a full result, a partial one, or a boolean (true = valid). */
export type ValidatorOutcome =
  | boolean
  | (Partial<ValidationResult> & { valid: boolean })
  | undefined
  // biome-ignore lint/suspicious/noConfusingVoidType: a validator that returns nothing passes
  | void;

/** What a validator sees besides the value. */
export interface ValidatorContext {
  /** `input` (the call's kwargs, or its args array) or `output` (the result). */
  phase: 'input' | 'output';
  /** The tool's name. */
  toolName: string;
  /** The call's positional arguments (empty for a kwargs-style call). */
  args: readonly unknown[];
  /** The call's keyword arguments (the single plain-object argument, else empty). */
  kwargs: Readonly<Record<string, unknown>>;
}

/** A validator function; may be async (a semantic check calling a model, say). `undefined` means valid. */
export type ValidatorFunction<Value = unknown> = (
  value: Value,
  context: ValidatorContext,
) => ValidatorOutcome | Promise<ValidatorOutcome>;

/** A named validator with an explicit kind (e.g. `semantic` for a model-graded check). */
export interface ValidatorSpec<Value = unknown> {
  /** Shown in messages and in `details.validator`. */
  name?: string | undefined;
  /** @default 'custom' */
  kind?: ValidatorKind | undefined;
  validate: ValidatorFunction<Value>;
}

/**
 * A validator: any Standard Schema (zod, valibot, arktype; kind `schema`), a function (kind
 * `custom`), or a {@link ValidatorSpec}.
 */
export type Validator<Value = unknown> =
  | StandardSchemaV1
  | ValidatorFunction<Value>
  | ValidatorSpec<Value>;

/** Validators of a guard (the seed's validators, input and output). */
export interface ValidatorsOptions<Result = unknown> {
  /** Run on the call's input (kwargs for a single plain-object argument, else the args array) before it runs. */
  input?: Validator | readonly Validator[] | undefined;
  /** Run on the result after a successful call. */
  output?: Validator<Result> | readonly Validator<Result>[] | undefined;
  /** Action when any validator fails. @default 'block' */
  onInvalid?: GuardAction | undefined;
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    '~standard' in value
  );
}

function fromSchema(
  result: StandardSchemaV1.Result<unknown>,
  vendor: string,
  phase: string,
): ValidationResult {
  if (result.issues === undefined) {
    return {
      valid: true,
      kind: 'schema',
      message: `${phase} matches the ${vendor} schema`,
      details: { vendor },
    };
  }
  const issues = result.issues.map((issue) => ({
    message: issue.message,
    path: (issue.path ?? [])
      .map((p) => (typeof p === 'object' && p !== null ? String(p.key) : String(p)))
      .join('.'),
  }));
  const first = issues[0];
  return {
    valid: false,
    kind: 'schema',
    message: `${phase} does not match the ${vendor} schema: ${first === undefined ? 'invalid' : `${first.path === '' ? '' : `${first.path}: `}${first.message}`}${issues.length > 1 ? ` (+${issues.length - 1} more)` : ''}`,
    details: { vendor, issues },
  };
}

function fromOutcome(
  outcome: ValidatorOutcome,
  kind: ValidatorKind,
  name: string,
  phase: string,
): ValidationResult {
  if (outcome === undefined || outcome === true)
    return { valid: true, kind, message: `${name} passed`, details: { validator: name } };
  if (outcome === false) {
    return {
      valid: false,
      kind,
      message: `${name} rejected the ${phase}`,
      details: { validator: name },
    };
  }
  if (typeof outcome !== 'object' || outcome === null || typeof outcome.valid !== 'boolean') {
    // a validator returning null, a number or `{ ok: true }` said nothing this guard can read
    const given =
      outcome === null
        ? 'null'
        : typeof outcome === 'object'
          ? 'an object without a boolean valid'
          : typeof outcome;
    return {
      valid: false,
      kind,
      message: `${name} returned ${given}; a validator returns true, false, undefined or { valid: boolean }`,
      details: { validator: name },
    };
  }
  return {
    valid: outcome.valid,
    kind: outcome.kind ?? kind,
    message:
      outcome.message ?? (outcome.valid ? `${name} passed` : `${name} rejected the ${phase}`),
    details: { validator: name, ...outcome.details },
  };
}

async function runOne(
  validator: Validator,
  value: unknown,
  context: ValidatorContext,
  index: number,
): Promise<ValidationResult> {
  const phase = context.phase;
  try {
    if (isStandardSchema(validator)) {
      const standard = validator['~standard'];
      return fromSchema(await standard.validate(value), standard.vendor, phase);
    }
    if (typeof validator === 'function') {
      const name = validator.name === '' ? `${phase} validator ${index + 1}` : validator.name;
      return fromOutcome(await validator(value, context), 'custom', name, phase);
    }
    const name = validator.name ?? `${phase} validator ${index + 1}`;
    return fromOutcome(
      await validator.validate(value, context),
      validator.kind ?? 'custom',
      name,
      phase,
    );
  } catch (error) {
    return {
      valid: false,
      kind: isStandardSchema(validator)
        ? 'schema'
        : typeof validator === 'function'
          ? 'custom'
          : (validator.kind ?? 'custom'),
      // never throws itself, whatever was thrown (a null-prototype object, a Proxy): the guard
      // must still release the call's budget reservation and the breaker's probe slot
      message: `${phase} validator ${index + 1} threw: ${errorMessage(error)}`,
      details: {
        error: errorMessage(error),
        error_type: errorType(error),
      },
    };
  }
}

/**
 * Runs validators on a value, all of them (concurrently), and collects a {@link ValidationResult}
 * from each. A validator that throws counts as invalid. Values are not transformed: a schema's
 * parsed output is not passed on.
 * @param validators - one validator or a list
 * @param value - the value to check
 * @param context - phase, tool name and the call's arguments
 * @returns one result per validator, in order
 * @example
 * ```ts
 * const results = await runValidators([z.object({ q: z.string() })], { q: 1 }, context);
 * results[0]?.valid; // false
 * ```
 */
export async function runValidators(
  validators: Validator | readonly Validator[],
  value: unknown,
  context: ValidatorContext,
): Promise<ValidationResult[]> {
  const list: readonly Validator[] = Array.isArray(validators)
    ? validators
    : [validators as Validator];
  return Promise.all(list.map((validator, index) => runOne(validator, value, context, index)));
}
