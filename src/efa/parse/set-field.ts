/**
 * Sets `key` on `target` as its own field, as JSON.parse does. A field an answer calls `__proto__` is
 * defined, not assigned: assigned, it would set the object's prototype.
 */
export function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
