import { parse } from "csv-parse/sync"

// Runs on a thread of the worker pool (platform/workers): a dataset is up to 5 MiB of tenant CSV.

export type CsvOutcome =
  | { readonly headers: ReadonlyArray<string>; readonly records: ReadonlyArray<ReadonlyArray<string>> }
  | { readonly invalid: { readonly line: number | undefined; readonly message: string } }

/** A CSV with a header line: its headers and records, or the line that breaks it. */
export const parseDataset = ({ text }: { readonly text: string }): CsvOutcome => {
  let records: Array<Array<string>>
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: false }) as Array<Array<string>>
  } catch (error) {
    const line = typeof error === "object" && error !== null && "lines" in error ? Number(error.lines) : undefined
    return { invalid: { line, message: error instanceof Error ? error.message : String(error) } }
  }
  return records.length === 0 || records[0].every((h) => h.trim() === "")
    ? { invalid: { line: 1, message: "The CSV has no header line" } }
    : { headers: records[0].map((h) => h.trim()), records: records.slice(1) }
}
