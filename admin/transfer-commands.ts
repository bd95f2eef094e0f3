/**
 * `import-users` and `export-users`: moving users in and out of an owner's tool (docs/migration.md).
 * The file is read line by line and written through a bounded number of concurrent conditional
 * puts, so memory does not grow with the file but for a digest of each e-mail seen (seen-emails.ts,
 * kept to report duplicates); a rerun finishes an import that stopped half way.
 */

import { once } from 'node:events';
import { type FileHandle, open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { OwnerPasswordPolicy } from '#domain/password-policy';
import { hashPassword } from '#domain/passwords';
import { decideLine, IMPORT_REASONS, type ImportCandidate, type ImportCounts, type UserTransferStore } from '#domain/user-transfer';
import type { PasswordSettings } from '#platform/config';
import { createReport, fileLines, openImportFile } from './import-file';
import { UsageError } from './key-commands';
import { seenEmails } from './seen-emails';

export const TRANSFER_USAGE = `  import-users <owner-email> <file> [--dry-run] [--report FILE]
                                import users (newline-delimited JSON) with their password hashes
  export-users <owner-email> [--output FILE]
                                one JSON line per user, password hashes included (the file is created 0600)`;

/** Conditional puts in flight at once: well inside a table's on-demand burst, and the SDK retries throttling. */
export const IN_FLIGHT = 16;

/** The command's positionals and options (every option a string or a flag). */
const parse = (
  args: string[],
  options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } => {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { ...options, 'users-table': { type: 'string' }, 'owners-table': { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('. ')[0]!.replace(/\.$/, '')}; see --help`);
  }
};

/** A deployed stage's tables as the command line names them (`--users-table`, `--owners-table`). */
export interface TableOptions {
  readonly usersTable?: string;
  readonly ownersTable?: string;
}

export interface TransferContext {
  readonly store: UserTransferStore;
  /** The owner's id; throws a UsageError naming an unknown owner. */
  readonly ownerIdOf: (ownerEmail: string) => Promise<string>;
  /** The owner's own password policy (minimum length, blocked words), which a clear `user_password` meets as on the API. */
  readonly ownerPolicyOf: (ownerId: string, ownerEmail: string) => Promise<OwnerPasswordPolicy | undefined>;
  readonly passwords: () => PasswordSettings;
  /**
   * The online password check (Pwned Passwords) when the operator's environment turns it on
   * (`PWNED_PASSWORDS_URL`, as on the stage): a clear `user_password` it finds fails its line.
   * Fail-open, as on the API: 'unavailable' lets the offline rules decide.
   */
  readonly breachCheck?: ((password: string) => Promise<'found' | 'not_found' | 'unavailable'>) | undefined;
}

/** Where a command writes: the process's own stdout and stderr, unless the caller (the bench) passes others. */
export interface CommandOutput {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & ProgressOutput;
}

/** `import-users`: resolves with the counts it printed; exit status 1 when a line failed or the import stopped. */
export async function importUsers(
  args: string[],
  connect: (tables: TableOptions) => TransferContext,
  { stdout, stderr }: CommandOutput = process,
): Promise<{ counts: ImportCounts; exitCode: 0 | 1 }> {
  const { values, positionals } = parse(args, { 'dry-run': { type: 'boolean' }, report: { type: 'string' } });
  const [ownerEmail, file, ...rest] = positionals;
  if (!ownerEmail || !file || rest.length > 0)
    throw new UsageError('usage: npm run admin -- import-users <owner-email> <file> [--dry-run] [--report FILE]');
  const context = connect(tablesOf(values));
  // Before anything is opened, read or written: a deployed stage refuses to run without its argon2id setting.
  context.passwords();
  const { handle: input, stats } = await openImportFile(file);
  let report: FileHandle | undefined;
  let ownerId: string;
  let ownerPolicy: OwnerPasswordPolicy | undefined;
  try {
    ownerId = await context.ownerIdOf(ownerEmail);
    ownerPolicy = await context.ownerPolicyOf(ownerId, ownerEmail);
    if (typeof values.report === 'string') report = await createReport(values.report, stats);
  } catch (error) {
    await input.close();
    throw error;
  }
  // From here the streams own the files and close them.
  return runImport({ input, size: stats.size, report, reportPath: String(values.report) }, context, ownerId, {
    ownerEmail,
    ownerPolicy,
    dryRun: values['dry-run'] === true,
    stdout,
    stderr,
  });
}

/** The import proper, once its files are open and its owner known. */
async function runImport(
  files: { input: FileHandle; size: number; report: FileHandle | undefined; reportPath: string },
  context: TransferContext,
  ownerId: string,
  {
    ownerEmail,
    ownerPolicy,
    dryRun,
    stdout,
    stderr,
  }: CommandOutput & {
    ownerEmail: string;
    ownerPolicy: OwnerPasswordPolicy | undefined;
    dryRun: boolean;
  },
): Promise<{ counts: ImportCounts; exitCode: 0 | 1 }> {
  const input = files.input.createReadStream();
  const report = files.report?.createWriteStream();
  /** The report's first write error: it ends the import (a failed line must never go unreported). */
  let reportError: NodeJS.ErrnoException | undefined;
  report?.on('error', (error) => {
    reportError ??= error;
  });
  const progress = importProgress(stderr, files.size);
  const passwords = context.passwords();
  const counts: ImportCounts = { imported: 0, exists: 0, failed: 0 };
  const seen = seenEmails();
  const inFlight = new Set<Promise<void>>();
  let stopped: unknown;
  let lineNumber = 0;
  /** Bytes of the lines read so far (the stream itself reads ahead by a buffer): the bar's share of the file. */
  let bytesRead = 0;

  const fail = (line: number, userEmail: string | null, reason: string) => {
    counts.failed++;
    const entry = `${JSON.stringify({ line, user_email: userEmail, reason })}\n`;
    if (!report) {
      progress.clear();
      stderr.write(entry);
    } else if (reportError === undefined) report.write(entry);
  };
  const write = async (candidate: ImportCandidate, line: number) => {
    if (candidate.password !== undefined && context.breachCheck && (await context.breachCheck(candidate.password)) === 'found') {
      fail(line, candidate.email, IMPORT_REASONS.passwordBreached);
      return;
    }
    if (dryRun) {
      counts[(await context.store.userExists(ownerId, candidate.email)) ? 'exists' : 'imported']++;
      return;
    }
    const passwordHash = candidate.passwordHash ?? (await hashPassword(candidate.password!, passwords.argon2));
    const created = await context.store.createUser({
      ownerId,
      email: candidate.email,
      passwordHash,
      shouldResetPassword: candidate.shouldResetPassword,
      ...(candidate.createdAt && { createdAt: candidate.createdAt }),
    });
    counts[created ? 'imported' : 'exists']++;
  };

  /** One line: its outcome decided, or its write started. A blank line (JSON whitespace only) is skipped. */
  const take = (text: string) => {
    if (BLANK.test(text)) return;
    const decision = decideLine(text, passwords.passwordPolicy, ownerEmail, ownerPolicy);
    if ('failed' in decision) {
      fail(lineNumber, decision.userEmail, decision.failed);
      return;
    }
    const first = seen.firstLine(decision.candidate.email, lineNumber);
    if (first !== undefined) {
      fail(lineNumber, decision.candidate.email, IMPORT_REASONS.duplicate(first));
      return;
    }
    const task: Promise<void> = write(decision.candidate, lineNumber).then(
      () => void inFlight.delete(task),
      (error: unknown) => {
        inFlight.delete(task);
        stopped ??= error;
      },
    );
    inFlight.add(task);
  };

  try {
    for await (const line of fileLines(input)) {
      if (stopped !== undefined || reportError !== undefined) break;
      lineNumber = line.number;
      bytesRead = line.bytesRead;
      if ('failed' in line) fail(lineNumber, null, line.failed);
      else take(line.text);
      progress.update(lineNumber, bytesRead, counts);
      if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
      // The report is written as fast as the file is read, never buffered without bound.
      if (report?.writableNeedDrain && reportError === undefined) await once(report, 'drain').catch(() => undefined);
    }
  } catch (error) {
    // A read error after the file opened (EIO, a file truncated under us): the import stops here.
    stopped ??= error;
  }
  input.destroy();
  await Promise.all(inFlight);
  progress.done(lineNumber, bytesRead, counts);
  if (report) {
    await finished(report.end()).catch((error: NodeJS.ErrnoException) => {
      reportError ??= error;
    });
  }
  stdout.write(`${JSON.stringify(counts)}\n`);
  if (reportError !== undefined) {
    stderr.write(
      `Cannot write the report ${files.reportPath} (${reportError.code ?? reportError.name}): the import stopped after line ${lineNumber}; run it again with a new --report to finish: imported lines report "exists"\n`,
    );
  } else if (stopped !== undefined) {
    // By name only: a storage error's text may quote an item. A rerun finishes the job.
    stderr.write(
      `Import stopped after line ${lineNumber} (${(stopped as Error).name ?? 'error'}); run it again to finish: imported lines report "exists"\n`,
    );
  }
  return { counts, exitCode: counts.failed > 0 || stopped !== undefined || reportError !== undefined ? 1 : 0 };
}

/** A line of JSON whitespace only (space, tab, CR): skipped, as the contract's blank lines are. */
const BLANK = /^[ \t\r]*$/;

const tablesOf = (values: Record<string, unknown>): TableOptions => ({
  ...(typeof values['users-table'] === 'string' && { usersTable: values['users-table'] }),
  ...(typeof values['owners-table'] === 'string' && { ownersTable: values['owners-table'] }),
});

/** Where progress goes: stderr, a terminal or not. */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * An import's progress. On a terminal, a bar rewritten in place every 1,000 lines or 250 ms: the
 * share of the file's bytes read, the lines read and the counts so far; `done` draws it once more
 * and ends its line. Otherwise (a pipe, a log file) a plain line every 10,000 lines.
 */
export function importProgress(out: ProgressOutput, fileBytes: number, now = () => performance.now()) {
  const status = (lines: number, counts: ImportCounts) =>
    `${lines} lines read: ${counts.imported} imported, ${counts.exists} exist, ${counts.failed} failed`;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  const draw = (lines: number, bytesRead: number, counts: ImportCounts) => {
    const share = fileBytes > 0 ? Math.min(1, bytesRead / fileBytes) : 1;
    const filled = Math.round(share * 30);
    const percent = `${Math.floor(share * 100)}%`.padStart(4);
    out.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${percent} ${status(lines, counts)}`);
    drawnAt = now();
    drawn = true;
  };
  return {
    update(lines: number, bytesRead: number, counts: ImportCounts): void {
      if (!out.isTTY) {
        if (lines % 10_000 === 0) out.write(`${status(lines, counts)}\n`);
      } else if (lines % 1_000 === 0 || now() - drawnAt >= 250) draw(lines, bytesRead, counts);
    },
    /** Before another line on the same terminal: the bar is wiped, and drawn again at its next update. */
    clear(): void {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
    done(lines: number, bytesRead: number, counts: ImportCounts): void {
      if (!out.isTTY) return;
      draw(lines, bytesRead, counts);
      out.write('\n');
      drawn = false;
    },
  };
}

/** `export-users`: resolves with how many users it wrote. */
export async function exportUsers(args: string[], connect: (tables: TableOptions) => TransferContext): Promise<number> {
  const { values, positionals } = parse(args, { output: { type: 'string' } });
  const [ownerEmail, ...rest] = positionals;
  if (!ownerEmail || rest.length > 0) throw new UsageError('usage: npm run admin -- export-users <owner-email> [--output FILE]');
  const context = connect(tablesOf(values));
  const ownerId = await context.ownerIdOf(ownerEmail);
  const path = typeof values.output === 'string' ? values.output : undefined;
  // Created readable by its owner only, and never over an existing file (whose mode would stay).
  const file = path
    ? await open(path, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(
          `Cannot create ${path}: ${error.code === 'EEXIST' ? 'it exists; an export is written to a new file only' : error.code}`,
        );
      })
    : undefined;
  const out = file ? file.createWriteStream() : process.stdout;
  /** The first write error (a full disk, a closed pipe): it ends the export with one line and exit 1, never a stack trace. */
  let writeError: NodeJS.ErrnoException | undefined;
  const onError = (error: NodeJS.ErrnoException) => {
    writeError ??= error;
  };
  out.on('error', onError);
  let written = 0;
  for await (const user of context.store.exportUsers(ownerId)) {
    if (writeError !== undefined) break;
    if (!out.write(`${JSON.stringify(user)}\n`)) await once(out, 'drain').catch(() => undefined);
    written++;
  }
  if (file) await finished(out.end()).catch(onError);
  if (writeError !== undefined) {
    throw new Error(
      `Cannot write ${path ?? 'stdout'} (${writeError.code ?? writeError.name}): the export stopped after ${written} users and is incomplete${path ? '; delete it and export again' : ''}`,
    );
  }
  process.stderr.write(
    `Exported ${written} users${path ? ` to ${path}` : ''}: the export holds their password hashes; keep it as secret as the keys.\n`,
  );
  return written;
}
