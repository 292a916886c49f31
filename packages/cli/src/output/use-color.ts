import type { CliOutput } from '../program/cli-io.js';

/**
 * Whether to colour an output: only a terminal, and never when `NO_COLOR` is set
 * (https://no-color.org) or `TERM=dumb`. `FORCE_COLOR` (non-empty, not `0`) forces it.
 * @param output - stdout or stderr
 * @param env - the environment
 * @returns true to write ANSI colours
 */
export function useColor(
  output: CliOutput,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return output.isTTY === true;
}

const codes = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;

/** Colour functions; each is the identity when colour is off. */
export interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/**
 * @param enabled - whether to colour
 * @returns functions wrapping text in ANSI colours (or not)
 */
export function createPalette(enabled: boolean): Palette {
  const paint = (code: number) =>
    enabled ? (text: string) => `\u001b[${code}m${text}\u001b[0m` : (text: string) => text;
  return {
    red: paint(codes.red),
    green: paint(codes.green),
    yellow: paint(codes.yellow),
    cyan: paint(codes.cyan),
    dim: paint(codes.dim),
    bold: paint(codes.bold),
  };
}
