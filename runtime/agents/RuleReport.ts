import { Context, Effect } from "effect"
import ExcelJS from "exceljs"

export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

export interface RuleResult {
  readonly rule_id: string
  readonly passed: boolean
  readonly reason: string
}

export interface RuleRow extends RuleResult {
  readonly description: string
  readonly checked_by: "condition" | "model"
}

/** Where generated files go (the agent service stores them and serves them for download). */
export class GeneratedFiles extends Context.Tag("GeneratedFiles")<GeneratedFiles, {
  readonly save: (file: {
    readonly tenantId: string
    readonly filename: string
    readonly contentType: string
    readonly bytes: Uint8Array
    readonly runId: string
  }) => Effect.Effect<string>
}>() {}

/** The rule_validation report: one sheet with the verdict and a row per rule (exceljs). */
export const ruleReport = (title: string, passed: boolean, rows: ReadonlyArray<RuleRow>) =>
  Effect.promise(async () => {
    const workbook = new ExcelJS.Workbook()
    workbook.creator = "Builder Platform"
    workbook.created = new Date(0)
    const sheet = workbook.addWorksheet("Validation")
    sheet.columns = [
      { header: "Rule", key: "rule_id", width: 24 },
      { header: "Description", key: "description", width: 60 },
      { header: "Result", key: "result", width: 10 },
      { header: "Reason", key: "reason", width: 80 },
      { header: "Checked by", key: "checked_by", width: 12 }
    ]
    sheet.getRow(1).font = { bold: true }
    for (const row of rows) {
      const added = sheet.addRow({ ...row, result: row.passed ? "PASS" : "FAIL" })
      added.getCell("result").font = { bold: true, color: { argb: row.passed ? "FF1E7B34" : "FFB42318" } }
      added.getCell("reason").alignment = { wrapText: true, vertical: "top" }
    }
    const summary = workbook.addWorksheet("Summary")
    summary.addRows([
      ["Report", title],
      ["Overall", passed ? "PASS" : "FAIL"],
      ["Rules", rows.length],
      ["Passed", rows.filter((r) => r.passed).length],
      ["Failed", rows.filter((r) => !r.passed).length]
    ])
    summary.getColumn(1).font = { bold: true }
    summary.getColumn(2).width = 40
    return new Uint8Array(await workbook.xlsx.writeBuffer())
  }).pipe(Effect.withSpan("rule_validation.report"))
