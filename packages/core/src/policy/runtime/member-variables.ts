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

/** @internal The element types a typed member may have, besides event types. */
export const memberValueTypes: ReadonlySet<string> = new Set([
  'str',
  'dict',
  'int',
  'float',
  'bool',
  'list',
]);

/**
 * @internal Whether an element has a member's type. JSON has one number type: `int` is an
 * integral number and `float` any number, so `1.0` read from JSON counts as an `int`.
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
 * string, the keys of a dict), with their locations.
 */
export function elementsOf(
  value: unknown,
  location: string | undefined,
): { items: readonly unknown[]; locations: (string | undefined)[] } {
  if (Array.isArray(value)) {
    return { items: value, locations: value.map((_, i) => elementLocation(value, i, location)) };
  }
  if (typeof value === 'string') {
    const items = [...value];
    const locations: (string | undefined)[] = [];
    let at = 0;
    for (const item of items) {
      locations.push(textSpan(location, at, at + item.length));
      at += item.length;
    }
    return { items, locations };
  }
  if (typeof value === 'object' && value !== null && !(value instanceof PolicyEvent)) {
    const items = Object.keys(value);
    return { items, locations: items.map(() => undefined) };
  }
  return { items: [], locations: [] };
}

/**
 * Binds the members of `members` from `from` on, each to every element of its type, testing each
 * member's conditions once it is bound; calls `visit` with the element indexes of every complete
 * satisfying assignment. Returns false when `visit` asked to stop.
 * @internal
 */
export function enumerateMembers(
  members: readonly MemberStep[],
  ctx: EvalContext,
  resetSlots: readonly number[],
  visit: (indexes: readonly number[]) => boolean,
): boolean {
  const indexes: number[] = new Array(members.length).fill(-1);
  const bind = (depth: number): boolean => {
    if (depth === members.length) return visit(indexes);
    const member = members[depth] as MemberStep;
    const [collection, location] = member.collection(ctx);
    const { items, locations } = elementsOf(collection, location);
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (!hasMemberType(item, member.type)) continue;
      ctx.frame[member.slot] = item;
      ctx.frame[member.locationSlot] = locations[k];
      // bindings may read this member: recompute them for the new element
      resetBindings(ctx, resetSlots);
      let ok = true;
      for (const test of member.tests) {
        if (!test(ctx)) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      indexes[depth] = k;
      if (!bind(depth + 1)) return false;
    }
    indexes[depth] = -1;
    return true;
  };
  return bind(0);
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
  const check = (depth: number): boolean => {
    if (depth === members.length) return true;
    const member = members[depth] as MemberStep;
    const [collection, location] = member.collection(ctx);
    const { items, locations } = elementsOf(collection, location);
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (!hasMemberType(item, member.type)) continue;
      ctx.frame[member.slot] = item;
      ctx.frame[member.locationSlot] = locations[k];
      resetBindings(ctx, resetSlots);
      for (const test of member.tests) if (!test(ctx)) return false;
      if (!check(depth + 1)) return false;
    }
    return true;
  };
  return check(0);
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
  members.forEach((member, depth) => {
    const [collection, location] = member.collection(ctx);
    const { items, locations } = elementsOf(collection, location);
    const k = indexes[depth] as number;
    const value = items[k] ?? null;
    ctx.frame[member.slot] = value;
    ctx.frame[member.locationSlot] = locations[k];
    resetBindings(ctx, resetSlots);
    for (const test of member.tests) test(ctx);
    out.push({ value, location: locations[k] });
  });
  return out;
}
