/** Left-aligned columns separated by two spaces; cells are made single-line. */
export function formatTable(headers: string[], rows: string[][]): string {
  const clean = (cell: string) => cell.replace(/\s+/g, ' ');
  const all = [headers, ...rows.map((row) => row.map(clean))];
  const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')).join('\n') + '\n';
}
