import type { VNode } from 'preact';
import { html } from '../html';

export interface DataTableProps<Row> {
  /** What the table holds, for a screen reader ("Installed plugins"). */
  caption: string;
  /** The column headings, in order. */
  columns: string[];
  rows: Row[];
  /** Said instead of the table when there is no row. */
  empty: string;
  /** One `<tr>` of a row; it names its row (`aria-label`) so it can be found by what it shows. */
  row: (item: Row, index: number) => VNode;
  class?: string;
  /** Announce rows as they are added (a log growing under the reader's eyes). */
  live?: boolean;
}

/** A table of one page's rows, with its caption and column headings, or a sentence when there is none. */
export function DataTable<Row>({ caption, columns, rows, empty, row, class: className, live = false }: DataTableProps<Row>) {
  if (rows.length === 0) return html`<p>${empty}</p>`;
  return html`<table class=${className}>
    <caption class="sr-only">
      ${caption}
    </caption>
    <thead>
      <tr>
        ${columns.map((column) => html`<th scope="col">${column}</th>`)}
      </tr>
    </thead>
    <tbody aria-live=${live ? 'polite' : undefined}>
      ${rows.map(row)}
    </tbody>
  </table>`;
}
