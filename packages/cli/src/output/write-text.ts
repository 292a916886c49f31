import type { CliOutput } from '../program/cli-io.js';

/**
 * Writes text and waits for the output to drain when it asks to, so a large report or
 * conversion written to a pipe does not pile up in memory.
 * @param output - where to write
 * @param text - the text
 * @returns when the text is accepted
 */
export async function writeText(output: CliOutput, text: string): Promise<void> {
  const accepted = output.write(text);
  if (accepted === false && output.once !== undefined) {
    const once = output.once.bind(output);
    await new Promise<void>((resolve) => once('drain', resolve));
  }
}
