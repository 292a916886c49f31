/**
 * The text the AI SDK sends the model for a tool that failed (the `error-text` tool result):
 * `@ai-sdk/provider`'s `getErrorMessage`, which `ai` applies to the thrown value. Written out
 * here (five lines) rather than imported, so this package loads no runtime code of the provider
 * package and needs no particular copy of it; a test holds it to the SDK's own text.
 * @param error - the value the tool threw
 * @returns what the model reads for it
 */
export function modelErrorText(error: unknown): string {
  if (error === null || error === undefined) return 'unknown error';
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.toString();
  return JSON.stringify(error);
}
