import fc from 'fast-check';

const text = fc.string({ maxLength: 20 });
// through JSON once, so values are exactly what a JSON file gives back (-0 becomes 0)
const jsonObject = fc
  .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

const message = fc.record({
  role: fc.constantFrom('user', 'assistant', 'system', 'developer'),
  content: fc.oneof(text, fc.constant(null), fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
});

const callingMessage = fc.record({
  role: fc.constant('assistant'),
  content: fc.constant(null),
  tool_calls: fc.array(
    fc.record(
      {
        id: fc.string({ minLength: 1, maxLength: 8 }),
        type: fc.constant('function'),
        function: fc.record({
          name: fc.string({ minLength: 1, maxLength: 10 }),
          arguments: fc.oneof(jsonObject, jsonObject.map((value) => JSON.stringify(value))),
        }),
      },
      { requiredKeys: ['type', 'function'] },
    ),
    { minLength: 1, maxLength: 2 },
  ),
});

const toolOutput = fc.record({ role: fc.constant('tool'), content: text }, { requiredKeys: ['role', 'content'] });

/** A raw (not yet normalised) trace in the seeds' chat-event format. */
export const rawTrace = fc.array(fc.oneof(message, callingMessage, toolOutput), { maxLength: 6 });

/** A raw dataset trace: a bare array of events or `{ messages, metadata? }`. */
export const rawDatasetTrace = fc.oneof(
  rawTrace,
  fc.record({ messages: rawTrace, metadata: jsonObject }, { requiredKeys: ['messages'] }),
);

/** A raw dataset `{ name, metadata, traces }`. */
export const rawDataset = fc.record({
  name: fc.string({ minLength: 1, maxLength: 10 }),
  metadata: jsonObject,
  traces: fc.array(rawDatasetTrace, { maxLength: 5 }),
});
