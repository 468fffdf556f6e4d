import type { Violation } from './errors';

/** Collects violations in the order the rules find them. */
export class ViolationList {
  readonly items: Violation[] = [];

  add(path: string, message: string): void {
    this.items.push({ path, message });
  }

  get empty(): boolean {
    return this.items.length === 0;
  }
}

/** `base.key`, or `key` at the root. */
export function fieldPath(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}

/** Describes a value's JSON type for messages, never its content. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}
