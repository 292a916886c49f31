import { PolicyError } from '../policy-error.js';
import type { PatternValue, ToolPattern } from './policy-ast.js';
import type { TokenStream } from './token-stream.js';

/**
 * @internal Parses `tool:name` or `tool:name({...})` (the stream is at `tool`): the tool name,
 * plain, dotted or a quoted regex, and a dict of argument patterns.
 */
export function parseToolPattern(stream: TokenStream): ToolPattern {
  const tool = stream.next(); // tool
  stream.next(); // :
  const nameToken = stream.peek();
  let name: string;
  let plainName = false;
  if (nameToken.kind === 'name') {
    name = stream.next().value;
    plainName = true;
    // allow dotted / dashed tool names written plainly: tool:mcp.read_file
    while (stream.isOp('.') && stream.peek(1).kind === 'name') {
      stream.next();
      name += `\\.${stream.next().value}`;
      plainName = false;
    }
  } else if (nameToken.kind === 'string') {
    name = stream.next().value;
    plainName = /^[A-Za-z0-9_-]+$/.test(name);
  } else {
    return stream.fail('a tool name after tool:', nameToken);
  }
  let args: PatternValue | undefined;
  if (stream.isOp('(')) {
    stream.next();
    if (!stream.isOp(')')) args = parsePatternValue(stream);
    stream.expectOp(')', ' to close the tool pattern');
    if (args !== undefined && args.kind !== 'dict') {
      throw new PolicyError({
        code: 'POLICY_SYNTAX',
        message: 'expected a dict of argument patterns inside tool:name({...})',
        line: args.line,
        column: args.column,
      });
    }
  }
  return { name, plainName, arguments: args, line: tool.line, column: tool.column };
}

function parsePatternValue(stream: TokenStream): PatternValue {
  stream.enter();
  const value = parsePatternValueInner(stream);
  stream.leave();
  return value;
}

/** A string (a full-match regex), a number, a constant, `*`, `<ENTITY>`, a dict or a list. */
function parsePatternValueInner(stream: TokenStream): PatternValue {
  const token = stream.peek();
  const at = { line: token.line, column: token.column };
  if (token.kind === 'string') {
    let source = stream.next().value;
    while (stream.peek().kind === 'string') source += stream.next().value;
    return { kind: 'regex', source, ...at };
  }
  if (token.kind === 'number') return { kind: 'value', value: Number(stream.next().value), ...at };
  if (stream.isOp('-') && stream.peek(1).kind === 'number') {
    stream.next();
    return { kind: 'value', value: -Number(stream.next().value), ...at };
  }
  if (token.kind === 'name' && (token.value === 'True' || token.value === 'true')) {
    stream.next();
    return { kind: 'value', value: true, ...at };
  }
  if (token.kind === 'name' && (token.value === 'False' || token.value === 'false')) {
    stream.next();
    return { kind: 'value', value: false, ...at };
  }
  if (token.kind === 'name' && (token.value === 'None' || token.value === 'null')) {
    stream.next();
    return { kind: 'value', value: null, ...at };
  }
  if (stream.isOp('*')) {
    stream.next();
    return { kind: 'wildcard', ...at };
  }
  if (stream.isOp('<') && stream.peek(1).kind === 'name' && stream.isOp('>', 2)) {
    stream.next();
    const entity = stream.next().value;
    stream.next();
    return { kind: 'placeholder', entity, ...at };
  }
  if (stream.isOp('{')) {
    stream.next();
    const entries: { key: string; value: PatternValue }[] = [];
    while (!stream.isOp('}')) {
      const key = stream.peek();
      if (key.kind !== 'name' && key.kind !== 'string')
        stream.fail('an argument name (name or string) in the pattern dict');
      stream.next();
      stream.expectOp(':', ' after the argument name');
      entries.push({ key: key.value, value: parsePatternValue(stream) });
      if (!stream.isOp(',')) break;
      stream.next();
    }
    stream.expectOp('}', ' to close the pattern dict');
    return { kind: 'dict', entries, ...at };
  }
  if (stream.isOp('[')) {
    stream.next();
    const items: PatternValue[] = [];
    while (!stream.isOp(']')) {
      items.push(parsePatternValue(stream));
      if (!stream.isOp(',')) break;
      stream.next();
    }
    stream.expectOp(']', ' to close the pattern list');
    return { kind: 'list', items, ...at };
  }
  return stream.fail(
    'a pattern value: a string (full-match regex), number, True/False/None, dict, list, * or <ENTITY>',
  );
}
