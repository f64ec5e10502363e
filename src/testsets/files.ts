// Reading an uploaded test set file (CSV or JSON) into rows. Every fault of the file is a 422 at
// ["body","file"] whose message says what is wrong and, for CSV, on which line.
import { CsvError, parse } from 'csv-parse/sync';
import { ValidationError } from '../shared/errors.js';
import { TESTSET_NAME_MAX, type TestsetRowData, type UploadedFile } from './inputs.js';

const fileLoc = ['body', 'file'];

function fileFault(msg: string): ValidationError {
  return ValidationError.at(fileLoc, msg, 'value_error');
}

/** UTF-8 text of the file, its byte-order mark dropped (TextDecoder strips it). */
function decode(file: UploadedFile): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(file.content);
  } catch {
    throw fileFault('The file is not valid UTF-8 text');
  }
}

/** A header fault found while csv-parse reads the first row. */
class HeaderError extends Error {}

/** Header names must be present and distinct, or a column's values would silently be lost. */
function checkHeader(header: string[]): string[] {
  const seen = new Set<string>();
  header.forEach((column, index) => {
    if (column.trim() === '') throw new HeaderError(`Column ${index + 1} of the header row has no name`);
    if (seen.has(column)) throw new HeaderError(`Column "${column}" appears twice in the header row`);
    seen.add(column);
  });
  return header;
}

export function parseCsvRows(file: UploadedFile): TestsetRowData[] {
  const text = decode(file);
  if (text.trim() === '') throw fileFault('The file is empty');
  let rows: TestsetRowData[];
  try {
    rows = parse(text, {
      bom: true,
      columns: checkHeader,
      skip_empty_lines: true,
      // Spreadsheets write CRLF between records but bare LF inside quoted cells.
      record_delimiter: ['\r\n', '\n', '\r'],
    });
  } catch (error) {
    if (error instanceof CsvError) throw fileFault(`Invalid CSV: ${error.message}`);
    if (error instanceof HeaderError) throw fileFault(`Invalid CSV: ${error.message}`);
    throw error;
  }
  if (rows.length === 0) throw fileFault('The CSV file has a header row but no data rows');
  return rows;
}

function isJsonObject(value: unknown): value is TestsetRowData {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJsonRows(file: UploadedFile): TestsetRowData[] {
  const text = decode(file);
  if (text.trim() === '') throw fileFault('The file is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fileFault(`Invalid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw fileFault('The JSON file must hold an array of objects (column → value)');
  if (value.length === 0) throw fileFault('The JSON array holds no rows');
  const notObject = value.findIndex((item) => !isJsonObject(item));
  if (notObject >= 0) throw fileFault(`Item ${notObject} of the JSON array is not an object (column → value)`);
  return value as TestsetRowData[];
}

/**
 * The test set name a file gives when none is sent: its name without directory or extension,
 * cut to the longest name a test set may have.
 */
export function nameFromFilename(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return (dot > 0 ? base.slice(0, dot) : base).trim().slice(0, TESTSET_NAME_MAX);
}
