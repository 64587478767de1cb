import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadTooLargeError } from '../errors.ts';
import type { TextSource } from './import-result.ts';

export interface SpooledFile {
  path: string;
  bytes: number;
  /** The file as text, from the start, each time (readers go over it more than once). */
  text: TextSource;
  /** Deletes the file and its private folder. */
  dispose(): Promise<void>;
}

/**
 * Streams an upload to a private temporary file (folder 0700, file 0600) without holding
 * it in memory, failing with 413 once more than `maxBytes` arrived. An import is read from
 * this file twice or three times (validate fully, then write), which a request body
 * cannot be; the file is deleted when the import ends, whatever the outcome.
 */
export async function spoolUpload(body: Readable, options: { dir: string | null; maxBytes: number }): Promise<SpooledFile> {
  const folder = await mkdtemp(join(options.dir ?? tmpdir(), 'rampart-import-'));
  const path = join(folder, 'upload');
  const dispose = () => rm(folder, { recursive: true, force: true });
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) done(new PayloadTooLargeError(`An import file may be at most ${options.maxBytes} bytes; nothing was imported.`, { max_bytes: options.maxBytes }));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await dispose();
    throw err;
  }
  return {
    path,
    bytes,
    text: () => createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 }),
    dispose,
  };
}
