// Where Python's `json` module finds a JSON text malformed, and what it says: FastAPI answers a
// malformed body with `json_invalid` at `["body", <that position>]`, and Agenta's clients read it
// (docs/validation.md#malformed-json). V8's JSON.parse names other positions (the character where
// it gave up, not the value it could not start), so this walks the text as CPython's C scanner
// (Modules/_json.c) does. It runs only after JSON.parse has refused a body. Positions count code
// points, as Python's str does, not UTF-16 units.

export interface JsonFault {
  /** A code-point offset into the text. */
  position: number;
  /** Python's message, e.g. "Expecting value". */
  message: string;
}

class Fault extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

const isWhitespace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const simpleEscapes = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** Python's fault in `text`, or null when Python would read it (NaN and Infinity, which JSON.parse refuses). */
export function pythonJsonFault(text: string): JsonFault | null {
  // A UTF-8 byte-order mark is dropped by Python's decoding of the body's bytes.
  const chars = Array.from(text.startsWith('\uFEFF') ? text.slice(1) : text);
  const end = chars.length;
  let sawNamedNumber = false;

  const skip = (index: number) => {
    while (index < end && isWhitespace(chars[index])) index++;
    return index;
  };

  /** Scans a string whose opening quote is at `start - 1`; answers the index after its closing quote. */
  const string = (start: number): number => {
    const begin = start - 1;
    let index = start;
    for (;;) {
      let c: string | undefined;
      for (; index < end; index++) {
        c = chars[index];
        if (c === '"' || c === '\\') break;
        if (c <= '\u001f') throw new Fault(index, 'Invalid control character at');
      }
      if (index >= end) throw new Fault(begin, 'Unterminated string starting at');
      index++;
      if (c === '"') return index;
      if (index === end) throw new Fault(begin, 'Unterminated string starting at');
      const escape = chars[index];
      if (escape !== 'u') {
        index++;
        if (!simpleEscapes.has(escape)) throw new Fault(index - 2, 'Invalid \\escape');
        continue;
      }
      index++;
      const last = index + 4;
      if (last >= end) throw new Fault(index - 1, 'Invalid \\uXXXX escape');
      for (; index < last; index++) if (!isHex(chars[index])) throw new Fault(last - 5, 'Invalid \\uXXXX escape');
    }
  };

  const number = (start: number): number => {
    let index = start;
    if (chars[index] === '-') {
      index++;
      if (index >= end) throw new Fault(start, 'Expecting value');
    }
    if (chars[index] >= '1' && chars[index] <= '9') {
      index++;
      while (isDigit(chars[index])) index++;
    } else if (chars[index] === '0') index++;
    else throw new Fault(start, 'Expecting value');
    if (index < end - 1 && chars[index] === '.' && isDigit(chars[index + 1])) {
      index += 2;
      while (isDigit(chars[index])) index++;
    }
    if (index < end - 1 && (chars[index] === 'e' || chars[index] === 'E')) {
      const exponent = index++;
      if (index < end - 1 && (chars[index] === '-' || chars[index] === '+')) index++;
      while (isDigit(chars[index])) index++;
      if (!isDigit(chars[index - 1])) index = exponent;
    }
    return index;
  };

  const word = (index: number, literal: string): boolean => chars.slice(index, index + literal.length).join('') === literal;

  const value = (index: number): number => {
    if (index >= end) throw new Fault(index, 'Expecting value');
    switch (chars[index]) {
      case '"':
        return string(index + 1);
      case '{':
        return object(index + 1);
      case '[':
        return array(index + 1);
    }
    for (const literal of ['null', 'true', 'false']) if (word(index, literal)) return index + literal.length;
    for (const literal of ['NaN', 'Infinity', '-Infinity']) {
      if (word(index, literal)) {
        sawNamedNumber = true;
        return index + literal.length;
      }
    }
    return number(index);
  };

  const object = (start: number): number => {
    let index = skip(start);
    if (index < end && chars[index] === '}') return index + 1;
    for (;;) {
      if (index >= end || chars[index] !== '"') throw new Fault(index, 'Expecting property name enclosed in double quotes');
      index = skip(string(index + 1));
      if (index >= end || chars[index] !== ':') throw new Fault(index, "Expecting ':' delimiter");
      index = skip(value(skip(index + 1)));
      if (index < end && chars[index] === '}') return index + 1;
      if (index >= end || chars[index] !== ',') throw new Fault(index, "Expecting ',' delimiter");
      index = skip(index + 1);
    }
  };

  const array = (start: number): number => {
    let index = skip(start);
    if (index < end && chars[index] === ']') return index + 1;
    for (;;) {
      index = skip(value(index));
      if (index < end && chars[index] === ']') return index + 1;
      if (index >= end || chars[index] !== ',') throw new Fault(index, "Expecting ',' delimiter");
      index = skip(index + 1);
    }
  };

  try {
    const after = skip(value(skip(0)));
    if (after !== end) return { position: after, message: 'Extra data' };
  } catch (error) {
    if (error instanceof Fault) return { position: error.position, message: error.message };
    // Nesting deep enough to overflow the stack: Python would refuse it too; say where it starts.
    return { position: 0, message: 'Too deeply nested' };
  }
  return sawNamedNumber ? null : { position: 0, message: 'Expecting value' };
}
