// The window rules every list shares (checkListWindow, src/api/validation.ts).
import { describe, expect, it } from '@jest/globals';
import { checkListWindow } from '../../src/api/validation';

const refusal = (query: Parameters<typeof checkListWindow>[0]) => {
  try {
    checkListWindow(query);
    return null;
  } catch (err) {
    const e = err as { code: string; param?: string };
    return { code: e.code, param: e.param };
  }
};

describe('a list window', () => {
  it('takes one cursor at a time', () => {
    expect(refusal({ starting_after: 'pay_1', ending_before: 'pay_2' })).toEqual({ code: 'invalid_search_criteria', param: 'ending_before' });
    expect(refusal({ starting_after: 'pay_1' })).toBeNull();
    expect(refusal({ ending_before: 'pay_2' })).toBeNull();
  });

  it('refuses a creation window that ends before it starts, and takes an empty one', () => {
    expect(refusal({ 'created[gte]': 200, 'created[lt]': 100 })).toEqual({ code: 'invalid_search_criteria', param: 'created[lt]' });
    expect(refusal({ 'created[gte]': 100, 'created[lt]': 100 })).toBeNull();
    expect(refusal({ 'created[gte]': 200 })).toBeNull();
    expect(refusal({ 'created[lt]': 100 })).toBeNull();
  });
});
