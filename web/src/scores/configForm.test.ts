import { describe, expect, it } from 'vitest';
import { configForm, emptyForm, formOf, parseCategories } from './configForm.ts';

describe("a score config's form", () => {
  it('sends bounds as numbers or null, and categories as label=value pairs', () => {
    expect(configForm({ ...emptyForm, name: 'quality', minValue: '0', maxValue: ' ', description: ' ' })).toEqual({
      name: 'quality',
      minValue: 0,
      maxValue: null,
      description: null,
    });
    expect(configForm({ ...emptyForm, name: 'tone', dataType: 'CATEGORICAL', categories: 'rude=0, a = b=1,kind=2.5,' })).toEqual({
      name: 'tone',
      categories: [
        { label: 'rude', value: 0 },
        { label: 'a = b', value: 1 },
        { label: 'kind', value: 2.5 },
      ],
      description: null,
    });
    expect(configForm({ ...emptyForm, name: 'correct', dataType: 'BOOLEAN', minValue: '3' })).toEqual({ name: 'correct', description: null });
  });

  it('says what GraphQL could not carry, and leaves the rest to the API', () => {
    expect(configForm({ ...emptyForm, minValue: 'low' })).toBe('Least value: type a number, or nothing for no bound');
    expect(parseCategories('good, bad=0')).toBe('Categories: write "good" as label=value, the value a number');
    expect(parseCategories('good=')).toBe('Categories: write "good=" as label=value, the value a number');
    // An empty name or list is the API's to refuse, by field.
    expect(configForm({ ...emptyForm, dataType: 'CATEGORICAL' })).toEqual({ name: '', categories: [], description: null });
  });

  it('shows a stored config', () => {
    expect(
      formOf({
        name: 'tone',
        dataType: 'CATEGORICAL',
        categories: [{ label: 'rude', value: 0 }],
        minValue: null,
        maxValue: null,
        description: 'How it sounds',
      }),
    ).toEqual({ name: 'tone', dataType: 'CATEGORICAL', minValue: '', maxValue: '', categories: 'rude=0', description: 'How it sounds' });
  });
});
