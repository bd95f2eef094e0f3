/**
 * A Markdown table with its columns padded as the formatter (Biome) lays them out, so a generated
 * table passes `biome ci` as written. Cells must not hold a `|`.
 */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [header, ...rows];
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
