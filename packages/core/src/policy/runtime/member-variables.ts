import { PolicyEvent } from './policy-event.js';
import { type EvalContext, type MemberStep, resetBindings } from './rule-plan.js';
import { elementLocation, textSpan } from './value-locations.js';

const eventKinds: Readonly<Record<string, (kind: string) => boolean>> = {
  Message: (kind) => kind === 'Message' || kind === 'ToolOutput',
  ToolCall: (kind) => kind === 'ToolCall',
  ToolOutput: (kind) => kind === 'ToolOutput',
  Tool: (kind) => kind === 'Tool',
  Event: () => true,
};

/**
 * @internal The element types a typed member may have, besides event types: Python's value
 * types, and seed 000's content classes (`(c: TextContent) in msg.content`).
 */
export const memberValueTypes: ReadonlySet<string> = new Set([
  'str',
  'dict',
  'int',
  'float',
  'bool',
  'list',
  'Content',
  'TextContent',
  'ImageContent',
]);

/** A content part (seed 000's `Content`): a dict with a string `type`, not an event. */
function contentType(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (value instanceof PolicyEvent) return undefined;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * @internal Whether an element has a member's type. JSON has one number type: `int` is an
 * integral number and `float` any number, so `1.0` read from JSON counts as an `int`. A content
 * part is a `dict` too; `TextContent` is one of type "text", `ImageContent` of type "image" (or
 * OpenAI's "image_url").
 */
export function hasMemberType(value: unknown, type: string): boolean {
  switch (type) {
    case 'str':
      return typeof value === 'string';
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number';
    case 'bool':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'Content':
      return contentType(value) !== undefined;
    case 'TextContent':
      return contentType(value) === 'text';
    case 'ImageContent': {
      // seed 000's "image", and OpenAI's "image_url" part
      const type = contentType(value);
      return type === 'image' || type === 'image_url';
    }
    case 'dict':
      return (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        !(value instanceof PolicyEvent)
      );
    default: {
      const test = eventKinds[type];
      return test !== undefined && value instanceof PolicyEvent && test(value.kind);
    }
  }
}

/**
 * @internal The elements of a collection as Python iterates them (lists, the characters of a
 * string, the keys of a dict), with their locations (computed only for elements that are bound).
 */
export class Elements {
  readonly items: readonly unknown[];
  /** Character offsets of a string's elements; undefined for other collections. */
  private readonly starts: number[] | undefined;

  constructor(
    private readonly collection: unknown,
    private readonly location: string | undefined,
  ) {
    this.starts = undefined;
    if (Array.isArray(collection)) this.items = collection;
    else if (typeof collection === 'string') {
      const items = [...collection];
      const starts: number[] = [];
      let at = 0;
      for (const item of items) {
        starts.push(at);
        at += item.length;
      }
      this.items = items;
      this.starts = starts;
    } else if (
      typeof collection === 'object' &&
      collection !== null &&
      !(collection instanceof PolicyEvent)
    )
      this.items = Object.keys(collection);
    else this.items = [];
  }

  /** Where element `k` is in the trace, when known. */
  locationOf(k: number): string | undefined {
    if (Array.isArray(this.collection)) return elementLocation(this.collection, k, this.location);
    if (this.starts !== undefined) {
      const start = this.starts[k] as number;
      return textSpan(this.location, start, start + (this.items[k] as string).length);
    }
    return undefined;
  }
}

/** Binds element `k` of `elements` to `member` and tests the member's conditions. */
function bindElement(
  member: MemberStep,
  elements: Elements,
  k: number,
  ctx: EvalContext,
  resetSlots: readonly number[],
): boolean {
  ctx.frame[member.slot] = elements.items[k];
  ctx.frame[member.locationSlot] = elements.locationOf(k);
  // bindings may read this member: recompute them for the new element
  resetBindings(ctx, resetSlots);
  for (const test of member.tests) if (!test(ctx)) return false;
  return true;
}

function enumerateFrom(
  depth: number,
  members: readonly MemberStep[],
  ctx: EvalContext,
  resetSlots: readonly number[],
  indexes: number[],
  visit: (indexes: readonly number[]) => boolean,
): boolean {
  if (depth === members.length) return visit(indexes);
  const member = members[depth] as MemberStep;
  const [collection, location] = member.collection(ctx);
  const elements = new Elements(collection, location);
  const items = elements.items;
  for (let k = 0; k < items.length; k++) {
    if (!hasMemberType(items[k], member.type)) continue;
    if (!bindElement(member, elements, k, ctx, resetSlots)) continue;
    indexes[depth] = k;
    if (!enumerateFrom(depth + 1, members, ctx, resetSlots, indexes, visit)) return false;
  }
  indexes[depth] = -1;
  return true;
}

/**
 * Binds the members, in order, each to every element of its type, testing each member's
 * conditions once it is bound; calls `visit` with the element indexes of every complete
 * satisfying assignment. Returns false when `visit` asked to stop.
 * @internal
 */
export function enumerateMembers(
  members: readonly MemberStep[],
  ctx: EvalContext,
  resetSlots: readonly number[],
  visit: (indexes: readonly number[]) => boolean,
): boolean {
  return enumerateFrom(0, members, ctx, resetSlots, new Array(members.length).fill(-1), visit);
}

const stop = (): boolean => false;

/**
 * @internal Whether some assignment of the members satisfies their conditions (stops at the
 * first).
 */
export function someMembersHold(
  members: readonly MemberStep[],
  ctx: EvalContext,
  resetSlots: readonly number[],
): boolean {
  return !enumerateMembers(members, ctx, resetSlots, stop);
}

function allFrom(
  depth: number,
  members: readonly MemberStep[],
  ctx: EvalContext,
  resetSlots: readonly number[],
): boolean {
  if (depth === members.length) return true;
  const member = members[depth] as MemberStep;
  const [collection, location] = member.collection(ctx);
  const elements = new Elements(collection, location);
  const items = elements.items;
  for (let k = 0; k < items.length; k++) {
    if (!hasMemberType(items[k], member.type)) continue;
    if (!bindElement(member, elements, k, ctx, resetSlots)) return false;
    if (!allFrom(depth + 1, members, ctx, resetSlots)) return false;
  }
  return true;
}

/**
 * Whether every assignment of the members (each to every element of its type) satisfies the
 * members' conditions: `forall:` over typed members.
 * @internal
 */
export function allMembersHold(
  members: readonly MemberStep[],
  ctx: EvalContext,
  resetSlots: readonly number[],
): boolean {
  return allFrom(0, members, ctx, resetSlots);
}

/**
 * Binds the members to the elements a found assignment chose (by index), re-evaluating each
 * collection (with range marking on, when describing a violation). Returns each member's value and
 * location.
 * @internal
 */
export function rebindMembers(
  members: readonly MemberStep[],
  indexes: readonly number[],
  ctx: EvalContext,
  resetSlots: readonly number[],
): { value: unknown; location: string | undefined }[] {
  const out: { value: unknown; location: string | undefined }[] = [];
  for (let depth = 0; depth < members.length; depth++) {
    const member = members[depth] as MemberStep;
    const [collection, location] = member.collection(ctx);
    const elements = new Elements(collection, location);
    const k = indexes[depth] as number;
    // the conditions run again only to mark their ranges
    bindElement(member, elements, k, ctx, resetSlots);
    out.push({ value: elements.items[k] ?? null, location: elements.locationOf(k) });
  }
  return out;
}
