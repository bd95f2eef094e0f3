/**
 * `npm run admin -- <command> --help`: that command's part of the usage, not the whole of it. Cut
 * from the full usage text, so a command added there (its line starting two spaces in, its
 * continuation lines indented further) has its own help with no change here.
 */

/** Options every command takes, and those only the commands that hash a clear password take. */
const COMMON: readonly { readonly option: string; readonly commands?: readonly string[]; readonly except?: readonly string[] }[] = [
  // reapply-deletions and migrate-sign-in-state name their tables themselves; replay-events reads neither table.
  { option: '--users-table', except: ['reapply-deletions', 'replay-events', 'migrate-sign-in-state'] },
  { option: '--argon2', commands: ['create-owner', 'reset-owner-password', 'import-users'] },
  { option: '--help' },
];

/** The commands the usage lists, in its order. */
export function usageCommands(usage: string): string[] {
  return [...usage.matchAll(/^ {2}([a-z][a-z-]+)(?= |$)/gm)].map((match) => match[1]!).filter((name) => name !== 'scope');
}

/** The block of lines starting at the line that begins `  <first>`, up to the next line indented two spaces or less. */
function block(lines: readonly string[], starts: (line: string) => boolean): string[] {
  const at = lines.findIndex(starts);
  if (at < 0) return [];
  const end = lines.findIndex((line, i) => i > at && !/^ {3,}\S/.test(line));
  return lines.slice(at, end < 0 ? lines.length : end);
}

/** One command's usage: its own lines, the key scope when it takes one, and the common options it takes; undefined for an unknown command. */
export function commandUsage(usage: string, command: string): string | undefined {
  if (!usageCommands(usage).includes(command)) return undefined;
  const lines = usage.split('\n');
  const own = block(lines, (line) => line.startsWith(`  ${command} `) || line === `  ${command}`);
  const scope = own[0]!.includes('[scope]') ? ['', ...block(lines, (line) => line.startsWith('  scope'))] : [];
  const common = COMMON.filter(
    ({ commands, except }) => (commands === undefined || commands.includes(command)) && !except?.includes(command),
  ).flatMap(({ option }) => block(lines, (line) => line.startsWith(`  ${option} `)));
  return [`usage: npm run admin -- ${own[0]!.trim().split(/\s{2,}/)[0]}`, '', ...own, ...scope, '', ...common].join('\n');
}
