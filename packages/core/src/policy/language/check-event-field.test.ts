import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../parse-policy.js';
import { PolicyError } from '../policy-error.js';

// A misspelt field of an event is always None: the rule would never fire and nothing would say
// why. A name one or two edits from a field of its event type is a POLICY_TYPE error; other
// names (fields a real trace adds) stay readable.

function compileError(body: string): PolicyError | undefined {
  try {
    parsePolicy(`raise "x" if:\n${body}`);
    return undefined;
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
}

describe('misspelt event fields', () => {
  it.each([
    [
      '    (out: ToolOutput)\n    "a" in out.contents',
      'ToolOutput has no field contents; did you mean content?',
      3,
    ],
    [
      '    (call: ToolCall)\n    call.fucntion.name == "a"',
      'ToolCall has no field fucntion; did you mean function?',
      3,
    ],
    [
      '    (call: ToolCall)\n    call.function.argument.to == "a"',
      'Function has no field argument; did you mean arguments?',
      3,
    ],
    [
      '    (msg: Message)\n    msg.tool_call == "a"',
      'Message has no field tool_call; did you mean tool_calls?',
      3,
    ],
    // two neighbouring letters swapped count as one edit
    [
      '    (call: ToolCall)\n    call.function.nmae == "a"',
      'Function has no field nmae; did you mean name?',
      3,
    ],
    [
      '    (msg: Message)\n    msg.contnet == "a"',
      'Message has no field contnet; did you mean content?',
      3,
    ],
    [
      '    (msg: Message)\n    (call: ToolCall) in msg.tool_calls\n    call.functon.name == "a"',
      'ToolCall has no field functon; did you mean function?',
      4,
    ],
  ])('%s is rejected with the field it most likely meant', (body, message, line) => {
    const error = compileError(body);
    expect(error?.code).toBe('POLICY_TYPE');
    expect(error?.message).toContain(message);
    expect(error?.line).toBe(line);
  });

  it.each([
    '    (call: ToolCall)\n    call.function.arguments.too == "a"',
    '    (msg: Message)\n    msg.reasoning_content == "a"',
    '    (out: ToolOutput)\n    out.metadata.source == "web"',
    '    (call: ToolCall)\n    call.id == "a"',
  ])(
    '%s compiles: arguments are free-form, and fields far from known ones are a trace’s own',
    (body) => {
      expect(compileError(body)).toBeUndefined();
    },
  );

  it('an extra field the trace carries is still read', () => {
    const policy = parsePolicy(
      'raise "from the web" if:\n    (out: ToolOutput)\n    out.origin == "web"',
    );
    const trace = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: {} } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x', origin: 'web' },
    ];
    expect(policy.check(trace).errors).toHaveLength(1);
  });
});
