import { PayloadTooLargeError, ValidationError } from '../errors.js';

/**
 * Turns job data into JSON, refusing anything JSON would silently change: `undefined` values,
 * functions, symbols, bigints, NaN and Infinity, Maps and Sets (which become `{}`), class
 * instances, and cycles. Nothing is ever silently dropped: what the handler gets is what was added.
 */
export function serializePayload(data: unknown, maxBytes: number): string {
  const value = data === undefined ? null : data;
  const bad = findUnserialisable(value, new Set());
  if (bad) throw new ValidationError(`Job data is not JSON-serialisable: ${bad.path} is ${bad.what}`);
  const json = JSON.stringify(value);
  // Most payloads are ASCII-sized; only count bytes when the character count could be over.
  if (json.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > maxBytes) throw new PayloadTooLargeError(bytes, maxBytes);
  }
  return json;
}

interface Unserialisable {
  path: string;
  what: string;
}

/**
 * The first value JSON would change, with its path ('$.items[2].at'); undefined when there is
 * none. The path is built on the way out of a refusal only, so checking a good payload (nearly
 * all of them) makes no strings.
 */
function findUnserialisable(value: unknown, seen: Set<object>): Unserialisable | undefined {
  const what = describeUnserialisable(value, seen);
  if (what !== undefined) return { path: '$', what };
  if (typeof value !== 'object' || value === null) return undefined;
  const object = value as object;
  if (Array.isArray(object) || !hasToJSON(object)) {
    seen.add(object);
    const found = findInChildren(object, seen);
    seen.delete(object);
    return found;
  }
  return undefined;
}

function findInChildren(object: object, seen: Set<object>): Unserialisable | undefined {
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length; i++) {
      const found = findUnserialisable(object[i], seen);
      if (found) return { ...found, path: `$[${i}]${found.path.slice(1)}` };
    }
    return undefined;
  }
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const found = findUnserialisable((object as Record<string, unknown>)[key], seen);
    if (found) return { ...found, path: `$${pathStep(key)}${found.path.slice(1)}` };
  }
  return undefined;
}

/** Why JSON cannot carry this value itself (its children aside), or undefined when it can. */
function describeUnserialisable(value: unknown, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : String(value);
    case 'undefined':
      return 'undefined';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    case 'bigint':
      return 'a bigint';
  }
  if (value === null) return undefined;
  const object = value as object;
  if (seen.has(object)) return 'a circular reference';
  // Objects that say how they become JSON (Date, and classes that define toJSON) are taken at their word.
  if (Array.isArray(object) || hasToJSON(object)) return undefined;
  const proto = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) {
    return `a ${object.constructor?.name ?? 'non-plain'} object`;
  }
  return undefined;
}

/** `.name` for a plain name, else `["a key"]`: the error stays one line whatever the key holds. */
function pathStep(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function hasToJSON(object: object): boolean {
  return typeof (object as { toJSON?: unknown }).toJSON === 'function';
}
