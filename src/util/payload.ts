import { PayloadTooLargeError, ValidationError } from '../errors.js';

/** Job data as JSON text, or a function that makes it (see checkPayload). */
export type Json = string | (() => string);

/**
 * Turns job data into JSON, refusing anything JSON would silently change: `undefined` values,
 * functions, symbols, bigints, NaN and Infinity, Maps and Sets (which become `{}`), class
 * instances, and cycles. Nothing is ever silently dropped: what the handler gets is what was added.
 */
export function serializePayload(data: unknown, maxBytes: number): string {
  const json = checkPayload(data, maxBytes);
  return typeof json === 'string' ? json : json();
}

/**
 * The same checks as serializePayload, but JSON that is sure to fit is left to be made later:
 * the walk that looks for what JSON would change also adds up an upper bound of the text's size,
 * and only data whose bound passes the limit (or that has its own toJSON) is turned into JSON
 * now, to measure it. addBulk checks every job this way before it sends any, then makes each
 * batch's JSON just before the batch goes, so Redis stores one batch while the next is made.
 * The returned function must be called before the caller's turn ends (the data may change after).
 */
export function checkPayload(data: unknown, maxBytes: number): Json {
  const value = data === undefined ? null : data;
  const walk = new PayloadWalk();
  const bad = walk.find(value);
  if (bad) throw new ValidationError(`Job data is not JSON-serialisable: ${bad.path} is ${bad.what}`);
  if (walk.bound <= maxBytes) return () => JSON.stringify(value);
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
 * One walk through the data: finds the first value JSON would change, with its path
 * ('$.items[2].at'), and adds up `bound`, an upper bound of the JSON text's size in UTF-8 bytes
 * (a character takes at most 6 bytes, as a \u escape; a number at most 25 characters). The path
 * is built on the way out of a refusal only, so checking a good payload (nearly all of them)
 * makes no strings.
 */
class PayloadWalk {
  bound = 0;
  private readonly seen = new Set<object>();

  find(value: unknown): Unserialisable | undefined {
    const what = describeUnserialisable(value, this.seen);
    if (what !== undefined) return { path: '$', what };
    if (typeof value === 'string') {
      this.bound += 2 + 6 * value.length;
      return undefined;
    }
    if (typeof value !== 'object' || value === null) {
      this.bound += 25;
      return undefined;
    }
    const object = value as object;
    if (!Array.isArray(object) && hasToJSON(object)) {
      // Its JSON is whatever its toJSON makes: only making it tells the size.
      this.bound = Number.POSITIVE_INFINITY;
      return undefined;
    }
    this.seen.add(object);
    const found = this.findInChildren(object);
    this.seen.delete(object);
    return found;
  }

  private findInChildren(object: object): Unserialisable | undefined {
    if (Array.isArray(object)) {
      this.bound += 2 + object.length;
      for (let i = 0; i < object.length; i++) {
        const found = this.find(object[i]);
        if (found) return { ...found, path: `$[${i}]${found.path.slice(1)}` };
      }
      return undefined;
    }
    this.bound += 2;
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      // The key in quotes, its colon and the comma after.
      this.bound += 4 + 6 * key.length;
      const found = this.find((object as Record<string, unknown>)[key]);
      if (found) return { ...found, path: `$${pathStep(key)}${found.path.slice(1)}` };
    }
    return undefined;
  }
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
