import { useQuery } from "@tanstack/react-query"
import { useNavigate, useSearch } from "@tanstack/react-router"
import { api } from "../../api/client"
import { Empty, ErrorState, Loading } from "../../ui/States"
import { TabPanel, Tabs } from "../../ui/Tabs"
import { ConfigsTab } from "./ConfigsTab"
import { DatasetsTab } from "./DatasetsTab"
import { RubricsTab } from "./RubricsTab"
import { RunsTab } from "./RunsTab"
import "./eval.css"

const TABS = ["runs", "datasets", "rubrics", "configs"] as const
type Tab = (typeof TABS)[number]
const NAMES: Record<Tab, string> = { runs: "Evaluations", datasets: "Datasets", rubrics: "Rubrics", configs: "Configs" }

/** Evaluation of an AI Employee: its datasets, rubrics and configs, and its evaluations. */
export const EvalPage = () => {
  const search = useSearch({ from: "/app/eval" })
  const navigate = useNavigate()
  const employees = useQuery({
    queryKey: ["ai-employees", "names"],
    queryFn: () => api((c) => c.workflows.list({ urlParams: { page_size: 100, archived: false } })),
    staleTime: 60_000
  })
  if (employees.isPending) return <Loading />
  if (employees.error !== null) return <ErrorState error={employees.error} retry={() => void employees.refetch()} />
  const items = employees.data.items
  if (items.length === 0) return <Empty>No AI Employee to evaluate yet.</Empty>
  const employee = search.employee ?? items[0].id
  const tab: Tab = (TABS as ReadonlyArray<string>).includes(search.tab ?? "") ? search.tab as Tab : "runs"
  const go = (next: { employee?: string; tab?: Tab }) => void navigate({ to: "/eval", search: { employee, tab, ...next } })
  return (
    <section aria-labelledby="eval-title" className="eval-page">
      <div className="page-head">
        <h1 id="eval-title">Evaluation</h1>
        <label>
          AI Employee{" "}
          <select value={employee} onChange={(e) => go({ employee: e.target.value })}>
            {items.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </label>
      </div>
      <Tabs tabs={TABS} selected={tab} onSelect={(t) => go({ tab: t })} label="Evaluation" name={(t) => NAMES[t]} idPrefix="eval" />
      <TabPanel idPrefix="eval" tab={tab}>
        {tab === "runs" && <RunsTab key={employee} workflowId={employee} />}
        {tab === "datasets" && <DatasetsTab key={employee} workflowId={employee} />}
        {tab === "rubrics" && <RubricsTab key={employee} workflowId={employee} />}
        {tab === "configs" && <ConfigsTab key={employee} workflowId={employee} />}
      </TabPanel>
    </section>
  )
}
