import { PayloadTooLargeError, ValidationError } from '../errors.js';

/**
 * Turns job data into JSON, refusing anything JSON would silently change: `undefined` values,
 * functions, symbols, bigints, NaN and Infinity, Maps and Sets (which become `{}`), class
 * instances, and cycles. Nothing is ever silently dropped: what the handler gets is what was added.
 */
export function serializePayload(data: unknown, maxBytes: number): string {
  checkJsonValue(data === undefined ? null : data, '$', new Set());
  const json = JSON.stringify(data === undefined ? null : data);
  // Most payloads are ASCII-sized; only count bytes when the character count could be over.
  if (json.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > maxBytes) throw new PayloadTooLargeError(bytes, maxBytes);
  }
  return json;
}

function refuse(path: string, what: string): never {
  throw new ValidationError(`Job data is not JSON-serialisable: ${path} is ${what}`);
}

function checkJsonValue(value: unknown, path: string, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(path, String(value));
      return;
    case 'undefined':
      refuse(path, 'undefined');
      break;
    case 'function':
      refuse(path, 'a function');
      break;
    case 'symbol':
      refuse(path, 'a symbol');
      break;
    case 'bigint':
      refuse(path, 'a bigint');
      break;
  }
  if (value === null) return;
  const object = value as object;
  if (seen.has(object)) refuse(path, 'a circular reference');
  if (Array.isArray(object)) {
    seen.add(object);
    for (let i = 0; i < object.length; i++) checkJsonValue(object[i], `${path}[${i}]`, seen);
    seen.delete(object);
    return;
  }
  // Objects that say how they become JSON (Date, and classes that define toJSON) are taken at their word.
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return;
  const proto = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) {
    refuse(path, `a ${object.constructor?.name ?? 'non-plain'} object`);
  }
  seen.add(object);
  for (const [key, child] of Object.entries(object)) {
    checkJsonValue(child, `${path}.${key}`, seen);
  }
  seen.delete(object);
}
