// A worker task (platform/workers/WorkerPool.ts): runs on a thread of the pool, no Effect services.
import ExcelJS from "exceljs"
export interface RuleResult {
  readonly rule_id: string
  readonly passed: boolean
  readonly reason: string
}

export interface RuleRow extends RuleResult {
  readonly description: string
  readonly checked_by: "condition" | "model"
}

export interface RuleReportInput {
  readonly title: string
  readonly passed: boolean
  readonly rows: ReadonlyArray<RuleRow>
}

/** The rule_validation report: one sheet with the verdict and a row per rule (exceljs). */
export const buildRuleReport = async ({ passed, rows, title }: RuleReportInput): Promise<Uint8Array> => {
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
}
