// A score config's form as text and back (docs/ui.md#administration): numbers and categories are
// typed, and only what GraphQL cannot carry is checked before sending (a bound that is no number,
// a category without its value); the rest is the API's to refuse, beside the field it names.

export type ConfigDataType = 'NUMERIC' | 'BOOLEAN' | 'CATEGORICAL';

export interface ConfigForm {
  name: string;
  dataType: ConfigDataType;
  minValue: string;
  maxValue: string;
  /** `label=value, label=value`. */
  categories: string;
  description: string;
}

export const emptyForm: ConfigForm = { name: '', dataType: 'NUMERIC', minValue: '', maxValue: '', categories: '', description: '' };

interface Category {
  label: string;
  value: number;
}

/** What `createScoreConfig` and `updateScoreConfig` take of the form (not the data type). */
export interface ConfigInput {
  name: string;
  minValue?: number | null;
  maxValue?: number | null;
  categories?: Category[] | null;
  description: string | null;
}

export function categoriesText(categories: readonly Category[]): string {
  return categories.map((category) => `${category.label}=${category.value}`).join(', ');
}

/** A config as the form shows it. */
export function formOf(config: {
  name: string;
  dataType: string;
  minValue?: number | null;
  maxValue?: number | null;
  categories?: readonly Category[] | null;
  description?: string | null;
}): ConfigForm {
  return {
    name: config.name,
    dataType: config.dataType as ConfigDataType,
    minValue: config.minValue == null ? '' : String(config.minValue),
    maxValue: config.maxValue == null ? '' : String(config.maxValue),
    categories: config.dataType === 'CATEGORICAL' ? categoriesText(config.categories ?? []) : '',
    description: config.description ?? '',
  };
}

function bound(text: string, label: string): number | null | string {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : `${label}: type a number, or nothing for no bound`;
}

/** `label=value` pairs separated by commas; a message when one is not. */
export function parseCategories(text: string): Category[] | string {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const categories: Category[] = [];
  for (const part of parts) {
    const at = part.lastIndexOf('=');
    const value = at > 0 ? Number(part.slice(at + 1).trim()) : Number.NaN;
    if (at <= 0 || part.slice(at + 1).trim() === '' || !Number.isFinite(value)) return `Categories: write "${part}" as label=value, the value a number`;
    categories.push({ label: part.slice(0, at).trim(), value });
  }
  return categories;
}

/** The form as the mutation's input, or what to fix first. */
export function configForm(form: ConfigForm): ConfigInput | string {
  const input: ConfigInput = { name: form.name, description: form.description.trim() || null };
  if (form.dataType === 'NUMERIC') {
    const minValue = bound(form.minValue, 'Least value');
    const maxValue = bound(form.maxValue, 'Greatest value');
    if (typeof minValue === 'string') return minValue;
    if (typeof maxValue === 'string') return maxValue;
    Object.assign(input, { minValue, maxValue });
  }
  if (form.dataType === 'CATEGORICAL') {
    const categories = parseCategories(form.categories);
    if (typeof categories === 'string') return categories;
    input.categories = categories;
  }
  return input;
}
