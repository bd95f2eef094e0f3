/**
 * The files `import-users` reads and writes, held to what docs/migration.md promises: the input is
 * a regular file, split into lines on `\n` alone so that line numbers are the file's own (Node's
 * readline also breaks on U+2028, U+2029 and a bare CR, which JSON strings and whitespace may
 * hold); each line is decoded as strict UTF-8 and held in memory only up to 1 MiB; the report is a
 * new file of mode 0600, never the input and never reached through a symbolic link.
 */

import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, stat } from 'node:fs/promises';
import { IMPORT_REASONS } from '#domain/user-transfer';
import { UsageError } from './key-commands';

/** The longest line an import reads, in bytes without its line end: the contract's 1 MiB. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** One line of the file, numbered from 1: its text, or why it has none; `bytesRead` counts the file up to its end. */
export type FileLine =
  | { readonly number: number; readonly text: string; readonly bytesRead: number }
  | { readonly number: number; readonly failed: string; readonly bytesRead: number };

const LF = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The lines of a byte stream, split on `\n` only: a `\r` before it is dropped, a UTF-8 byte order
 * mark at the very start is skipped, a last line without `\n` still counts. A line longer than
 * `maxBytes` is `line too long`, and its bytes past the limit are skipped as they arrive rather
 * than kept (so `/dev/zero`-like input cannot exhaust memory); bytes that are not UTF-8 are
 * `not valid UTF-8` (never decoded to U+FFFD).
 */
export async function* fileLines(input: AsyncIterable<Buffer>, maxBytes = MAX_LINE_BYTES): AsyncGenerator<FileLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let pieces: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let number = 0;
  let bytesRead = 0;
  const finish = (): FileLine => {
    number++;
    let bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size);
    pieces = [];
    size = 0;
    if (bytes.at(-1) === CR) bytes = bytes.subarray(0, -1);
    if (number === 1 && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    if (tooLong || bytes.length > maxBytes) {
      tooLong = false;
      return { number, failed: IMPORT_REASONS.lineTooLong, bytesRead };
    }
    try {
      return { number, text: decoder.decode(bytes), bytesRead };
    } catch {
      return { number, failed: IMPORT_REASONS.notUtf8, bytesRead };
    }
  };
  for await (const chunk of input) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      bytesRead += end - start + (newline === -1 ? 0 : 1);
      // One byte of slack for a `\r` before the `\n`, dropped when the line ends.
      if (!tooLong && size + (end - start) > maxBytes + 1 + BOM.length) {
        tooLong = true;
        pieces = [];
        size = 0;
      } else if (!tooLong && end > start) {
        pieces.push(chunk.subarray(start, end));
        size += end - start;
      }
      if (newline === -1) break;
      yield finish();
      start = newline + 1;
    }
  }
  if (size > 0 || tooLong) yield finish();
}

/** What a path that is not a regular file is, in words. */
const kindOf = (stats: Stats) =>
  stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a FIFO'
      : stats.isCharacterDevice()
        ? 'a character device'
        : stats.isBlockDevice()
          ? 'a block device'
          : stats.isSocket()
            ? 'a socket'
            : 'not a regular file';

/**
 * The import file, opened for reading, or a UsageError in one line. Opened without blocking, so a
 * FIFO with no writer is refused at once instead of waiting for one; then anything but a regular
 * file (a directory, a device, a FIFO) is refused before a byte is read.
 */
export async function openImportFile(path: string): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`Cannot read ${path}: ${error.code ?? error.name}`);
  });
  const stats = await handle.stat();
  if (stats.isFile()) return { handle, stats };
  await handle.close();
  throw new UsageError(`Cannot read ${path}: it is ${kindOf(stats)}; the import reads a regular file only`);
}

/**
 * The `--report` file, created new: `O_EXCL` refuses any existing path, a symbolic link included
 * (dangling or not), so the report can never be the input nor replace a file through a link;
 * mode 0600, as it names the users. A path that cannot be created is a UsageError in one line,
 * which says why (the input itself, by device and inode, whatever path or link names it).
 */
export async function createReport(path: string, input: Stats): Promise<FileHandle> {
  try {
    return await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    let why = code ?? 'error';
    if (code === 'ENOENT') why = 'its folder does not exist';
    if (code === 'EEXIST' || code === 'ELOOP') {
      const [target, link] = await Promise.all([stat(path).catch(() => undefined), lstat(path).catch(() => undefined)]);
      why = 'it exists; the report is always written to a new file';
      if (link?.isSymbolicLink()) why = 'it is a symbolic link; the report is never written through one';
      if (target?.dev === input.dev && target.ino === input.ino) why = 'it is the input file';
    }
    throw new UsageError(`Cannot create the report ${path}: ${why}`);
  }
}
