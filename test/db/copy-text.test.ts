import { describe, expect, it } from 'vitest';
import { copyField, copyText } from '../../src/db/copy.js';

describe('COPY text', () => {
  it('escapes backslash, tab, newline and carriage return, and passes other text through', () => {
    expect(copyField('Bahnhof Süd')).toBe('Bahnhof Süd');
    expect(copyField('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyField('\\N')).toBe('\\\\N');
    expect(copyField(null)).toBe('\\N');
    expect(copyField(1.5)).toBe('1.5');
    expect(copyField(false)).toBe('f');
    expect(() => copyField(Number.NaN)).toThrow(RangeError);
  });

  it('chunks rows without splitting one', () => {
    const chunks = [...copyText([['a', 1], ['b\t', 2]], (r) => r, 4)];
    expect(chunks).toEqual(['a\t1\n', 'b\\t\t2\n']);
  });
});
