import { describe, expect, it } from '@jest/globals';
import { neutraliseCell } from './csv-cell.js';

describe('neutraliseCell', () => {
  it.each([
    ['=HYPERLINK("http://x")', `'=HYPERLINK("http://x")`],
    ['+1+2', `'+1+2`],
    ['-2+3', `'-2+3`],
    ['@SUM(A1)', `'@SUM(A1)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `'\r=1`],
    ['\uFF1D1+1', `'\uFF1D1+1`],
  ])('prefixes a quote to the formula-like cell %j', (input, expected) => {
    expect(neutraliseCell(input)).toBe(expected);
  });

  it.each(['', 'hello', 'a=b', 'someone@gmail.com', ' =1', "'already", '1-2', 'line\n=2'])(
    'leaves the ordinary cell %j unchanged',
    (input) => {
      expect(neutraliseCell(input)).toBe(input);
    },
  );
});
