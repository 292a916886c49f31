import type { TraceError } from '../errors/index.js';
import { checkLimitedField } from './check-limited-field.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { isRecord } from './is-record.js';
import { describeValue, reportFieldError } from './report-block-error.js';
import type { BlockLimits } from './types.js';

export function checkMessagePayload(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  limits: BlockLimits,
): void {
  const role = payload.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant') {
    reportFieldError(
      errors,
      draft,
      path,
      'role',
      `payload.role must be one of system, user, assistant, got ${describeValue(role)}`,
    );
  }
  // Assistant turns that only carry tool calls have no content (decision 001).
  const mayBeEmpty = role === 'assistant';
  const content = payload.content;
  if (typeof content === 'string') {
    if (content === '' && !mayBeEmpty) {
      reportFieldError(
        errors,
        draft,
        path,
        'content',
        'payload.content must not be empty for a system or user message',
      );
    }
    checkLimitedField(errors, draft, path, 'content', content, limits.messageBytes);
  } else if (Array.isArray(content)) {
    if (content.length === 0 && !mayBeEmpty) {
      reportFieldError(
        errors,
        draft,
        path,
        'content',
        'payload.content must not be an empty list for a system or user message',
      );
    }
    // text parts without text (absent, or `null` as some providers write it) say nothing: a list
    // of only those is empty content (seed 002's "non-empty content"; seed 000's TextContent
    // requires `text`); any other part is content
    let saysSomething = false;
    for (let i = 0; i < content.length; i++) {
      const part: unknown = content[i];
      if (!isRecord(part) || typeof part.type !== 'string') {
        reportFieldError(
          errors,
          draft,
          path,
          `content.${i}`,
          `payload.content[${i}] must be a content part object with a string "type", got ${describeValue(part)}`,
        );
        saysSomething = true;
      } else if (part.type !== 'text') {
        saysSomething = true;
      } else if (part.text != null && typeof part.text !== 'string') {
        reportFieldError(
          errors,
          draft,
          path,
          `content.${i}.text`,
          `payload.content[${i}].text must be a string, got ${describeValue(part.text)}`,
        );
        saysSomething = true;
      } else if (part.text != null && part.text !== '') {
        saysSomething = true;
      }
    }
    if (content.length > 0 && !saysSomething && !mayBeEmpty) {
      reportFieldError(
        errors,
        draft,
        path,
        'content',
        'payload.content must not be empty for a system or user message: its text parts have no text; give a part text, or leave the empty parts out',
      );
    }
    checkLimitedField(errors, draft, path, 'content', content, limits.messageBytes);
  } else if (content === null || content === undefined) {
    if (!mayBeEmpty) {
      reportFieldError(
        errors,
        draft,
        path,
        'content',
        'payload.content is required for a system or user message (only assistant messages may have no content)',
      );
    }
  } else {
    reportFieldError(
      errors,
      draft,
      path,
      'content',
      `payload.content must be a string, a list of content parts or null, got ${describeValue(content)}`,
    );
  }
}
