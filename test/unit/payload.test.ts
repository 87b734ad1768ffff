import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError, ValidationError } from '../../src/errors.js';
import { checkPayload, serializePayload } from '../../src/util/payload.js';

describe('serializePayload', () => {
  it('serialises plain JSON values, and undefined data as null', () => {
    expect(serializePayload({ a: [1, 'x', null, true], b: { c: 2.5 } }, 1000)).toBe(
      '{"a":[1,"x",null,true],"b":{"c":2.5}}',
    );
    expect(serializePayload(undefined, 1000)).toBe('null');
    expect(serializePayload('text', 1000)).toBe('"text"');
    expect(serializePayload(Object.create(null), 1000)).toBe('{}');
  });

  it('accepts objects that define toJSON, like Date', () => {
    expect(serializePayload({ at: new Date(0) }, 1000)).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  const circular: Record<string, unknown> = {};
  circular.self = circular;
  class Point {
    x = 1;
  }
  it.each([
    ['undefined inside an object', { a: undefined }, /\$\.a is undefined/],
    ['undefined inside an array', [1, undefined], /\$\[1\] is undefined/],
    ['a function', { f: () => 1 }, /\$\.f is a function/],
    ['a symbol', { s: Symbol('x') }, /\$\.s is a symbol/],
    ['a bigint', { n: 10n }, /\$\.n is a bigint/],
    ['NaN', { n: Number.NaN }, /\$\.n is NaN/],
    ['Infinity', [Number.POSITIVE_INFINITY], /\$\[0\] is Infinity/],
    ['a Map', { m: new Map() }, /\$\.m is a Map object/],
    ['a Set', new Set([1]), /\$ is a Set object/],
    ['a class instance', { p: new Point() }, /\$\.p is a Point object/],
    ['a circular reference', circular, /\$\.self is a circular reference/],
    [
      'a bad value under an odd key, on one line',
      { 'two\nlines': [undefined] },
      /^[^\n]*\$\["two\\nlines"\]\[0\] is undefined$/,
    ],
  ])('refuses %s, naming where it is', (_label, value, message) => {
    expect(() => serializePayload(value, 1000)).toThrow(ValidationError);
    expect(() => serializePayload(value, 1000)).toThrow(message);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(serializePayload({ a: shared, b: shared }, 1000)).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('refuses a payload over the limit, counting UTF-8 bytes', () => {
    expect(serializePayload('é'.repeat(10), 22)).toBe(`"${'é'.repeat(10)}"`);
    expect(() => serializePayload('é'.repeat(11), 22)).toThrow(PayloadTooLargeError);
    expect(() => serializePayload('é'.repeat(11), 22)).toThrow(
      /24 bytes as JSON, over the limit of 22 bytes/,
    );
  });

  it('decides on the size as exactly as making the JSON would, whether it makes it now or later', () => {
    // checkPayload leaves the JSON for later only under an upper bound of its size: whatever the
    // data (escapes, emoji, long numbers), the outcome must be the one the exact count gives.
    const data = fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 });
    fc.assert(
      fc.property(data, fc.integer({ min: 2, max: 400 }), (value, max) => {
        const json = JSON.stringify(value);
        const bytes = Buffer.byteLength(json, 'utf8');
        if (bytes > max) {
          expect(() => checkPayload(value, max)).toThrow(PayloadTooLargeError);
        } else {
          const checked = checkPayload(value, max);
          expect(typeof checked === 'string' ? checked : checked()).toBe(json);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('makes the JSON now when the data has its own toJSON, or could be near the limit', () => {
    expect(checkPayload({ at: new Date(0) }, 1000)).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    expect(checkPayload('x'.repeat(100), 110)).toBe(`"${'x'.repeat(100)}"`);
    const later = checkPayload({ small: 'x' }, 1000);
    expect(typeof later).toBe('function');
    expect((later as () => string)()).toBe('{"small":"x"}');
  });
});
