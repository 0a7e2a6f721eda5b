import { describe, expect, it } from '@jest/globals';
import { formatValidationError } from './format-error';

describe('formatValidationError', () => {
  it('reads message and msg', () => {
    expect(formatValidationError({ message: 'Title is required' })).toBe('Title is required');
    expect(formatValidationError({ msg: 'Bad email' })).toBe('Bad email');
  });

  it('joins zod-style issues with "; "', () => {
    expect(
      formatValidationError({
        issues: [
          { message: 'Title is required', path: ['title'] },
          { message: 'URL is required', path: ['url'] },
        ],
      }),
    ).toBe('Title is required; URL is required');
  });

  it("joins per-field errors (the services' {errors: {field: [msg]}} shape)", () => {
    expect(
      formatValidationError({
        detail: 'Validation failed',
        code: 'invalid',
        errors: { email: ['Email is required'], role: ['Please choose a role'] },
      }),
    ).toBe('Email is required; Please choose a role');
  });

  it('reads errors given as a list', () => {
    expect(formatValidationError({ errors: [{ msg: 'a is wrong' }, 'b is wrong'] })).toBe(
      'a is wrong; b is wrong',
    );
  });

  it('reads formErrors.fieldErrors (zod flatten)', () => {
    expect(
      formatValidationError({
        formErrors: {
          formErrors: [],
          fieldErrors: { title: ['Title is required'], url: ['URL is required', 'Bad URL'] },
        },
      }),
    ).toBe('Title is required; URL is required; Bad URL');
  });

  it('walks nested objects', () => {
    expect(
      formatValidationError({
        data: { body: { title: { message: 'Too long' } }, other: { msg: 'Nope' } },
      }),
    ).toBe('Too long; Nope');
  });

  it('falls back to "Validation failed" for an object with nothing readable', () => {
    expect(formatValidationError({ code: 'invalid', status: 400 })).toBe('Validation failed');
    expect(formatValidationError({})).toBe('Validation failed');
  });

  it('falls back to "Please check your inputs" for an empty list', () => {
    expect(formatValidationError([])).toBe('Please check your inputs');
    expect(formatValidationError([{}, null])).toBe('Please check your inputs');
  });

  it('gives "Unknown error" for a bare unknown value', () => {
    expect(formatValidationError(undefined)).toBe('Unknown error');
    expect(formatValidationError(null)).toBe('Unknown error');
    expect(formatValidationError(42)).toBe('Unknown error');
    expect(formatValidationError('')).toBe('Unknown error');
  });

  it('passes a plain string and an Error through', () => {
    expect(formatValidationError('Something broke')).toBe('Something broke');
    expect(formatValidationError(new Error('boom'))).toBe('boom');
  });

  it('does not repeat the same message twice', () => {
    expect(formatValidationError({ issues: [{ message: 'X' }, { message: 'X' }] })).toBe('X');
  });
});
