// @ts-check

/**
 * @typedef {{ id: string | null, event: string, data: string }} SseMessage
 */

/**
 * Incremental text/event-stream parser (the WHATWG rules the console needs): lines end in
 * \n, \r\n or \r; `field: value`; a blank line dispatches; `id` without a message still
 * moves the last event id; comments start with `:`. Feed it decoded text as it arrives.
 * @param {(message: SseMessage) => void} onMessage
 * @param {(ms: number) => void} onRetry
 */
export function createSseParser(onMessage, onRetry) {
  let buffer = '';
  let event = '';
  /** @type {string[]} */
  let data = [];
  /** @type {string | null} */
  let id = null;
  let sawCr = false;

  /** @param {string} line */
  const handleLine = (line) => {
    if (line === '') {
      if (data.length) onMessage({ id, event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      id = null;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  };

  return {
    /** @param {string} chunk */
    push(chunk) {
      // A \r at the end of the last chunk and a \n at the start of this one are one line end.
      if (sawCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      sawCr = false;
      buffer += chunk;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        handleLine(buffer.slice(start, i));
        if (c === '\r') {
          if (i + 1 === buffer.length) sawCr = true;
          else if (buffer[i + 1] === '\n') i++;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
  };
}
