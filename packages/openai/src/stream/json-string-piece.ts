/**
 * A piece of text as the inside of a JSON string (escaped, without its quotes): the pieces of
 * one streamed text, each escaped alone, join into the JSON string of the whole text (a
 * surrogate pair split between two pieces becomes two `\u` escapes, which parse back to the
 * pair). Custom tool calls stream their free-form input so, as the JSON text of `{ input }`.
 * @internal
 * @param text - one piece of the streamed text
 * @returns the piece, escaped for a JSON string
 * @example `'{"input":"' + jsonStringPiece('say "hi"') + '"}'` is `{"input":"say \"hi\""}`
 */
export function jsonStringPiece(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
