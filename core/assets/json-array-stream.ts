import { InputError } from '../errors.ts';

const MAX_ELEMENT_CHARS = 64 * 1024;
const MAX_FRAME_CHARS = 1024;

function invalid(message: string): never {
  throw new InputError(`The request body is not a valid JSON import document: ${message}`, 'invalid_json');
}

/**
 * Yields the elements of the array under `key` in a body of the exact form
 * `{"<key>": [ … ]}`, one parsed element at a time, without holding the document:
 * a scanner tracks strings and nesting, cuts out each top-level element of the array
 * and JSON.parses only that slice. Memory is bounded by the largest element.
 */
export async function* jsonArrayElements(chunks: AsyncIterable<string>, key: string): AsyncGenerator<unknown> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let frame = ''; // text outside the array: must read `{"key":` before and `}` after
  let element = '';
  let capturing = false;
  let afterComma = false;
  let arrayState: 'before' | 'inside' | 'after' = 'before';
  const prefix = new RegExp(`^\\s*\\{\\s*"${key}"\\s*:\\s*$`);

  const finishElement = function* (): Generator<unknown> {
    if (!capturing) return;
    capturing = false;
    let value: unknown;
    try {
      value = JSON.parse(element);
    } catch {
      invalid('an array element is not valid JSON');
    }
    element = '';
    yield value;
  };

  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      if (arrayState !== 'inside') {
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === '\\') escaped = true;
          else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (ch === '[' && arrayState === 'before') {
          if (!prefix.test(frame)) invalid(`expected an object whose only key is "${key}"`);
          arrayState = 'inside';
          depth = 0;
          frame = '';
          continue;
        }
        frame += ch;
        if (frame.length > MAX_FRAME_CHARS) invalid(`expected an object whose only key is "${key}"`);
        continue;
      }
      // Inside the array: depth counts brackets opened within the current element.
      if (inString) {
        element += ch;
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        capturing = true;
        inString = true;
        element += ch;
      } else if (ch === '{' || ch === '[') {
        capturing = true;
        depth += 1;
        element += ch;
      } else if ((ch === '}' || ch === ']') && depth > 0) {
        depth -= 1;
        element += ch;
      } else if (depth === 0 && (ch === ',' || ch === ']')) {
        if (!capturing && (ch === ',' || afterComma)) invalid('empty array element');
        afterComma = ch === ',';
        yield* finishElement();
        if (ch === ']') arrayState = 'after';
      } else if (depth === 0 && /\s/.test(ch)) {
        if (capturing) element += ch;
      } else {
        capturing = true;
        element += ch;
      }
      if (element.length > MAX_ELEMENT_CHARS) invalid(`an array element is larger than ${MAX_ELEMENT_CHARS} characters`);
    }
  }
  if (arrayState === 'before') invalid(`no "${key}" array`);
  if (arrayState === 'inside' || inString || !/^\s*\}\s*$/.test(frame)) invalid('the document is incomplete or has more than one key');
}
