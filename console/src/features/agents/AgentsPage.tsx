import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { allows, useSession } from "../../api/session"
import { Json, StatusBadge, When } from "../../ui/Bits"
import { ErrorState, Query } from "../../ui/States"
import { AgentTypeFields, KnowledgeField } from "../builder/AgentFields"

interface Draft {
  readonly agent_type: string
  readonly type_version: string
  readonly system_prompt_template: string
}

/**
 * Try an agent step on its own: a type and version, instructions, inputs (JSON) and knowledge
 * bases; a dry run calls no tool with side effects. The answer, its tokens and the step's output.
 */
const TestExecute = ({ config, setConfig }: { readonly config: Draft; readonly setConfig: (next: Draft) => void }) => {
  const [inputs, setInputs] = useState("{}")
  const [kbs, setKbs] = useState<ReadonlyArray<string>>([])
  const [dry, setDry] = useState(true)
  const [inputError, setInputError] = useState<string | undefined>(undefined)
  const run = useMutation({
    mutationFn: (parsed: Record<string, unknown>) =>
      api((c) =>
        c.agents.testExecute({
          payload: {
            agent_config: { ...config },
            inputs: parsed,
            is_dry_run: dry,
            ...(kbs.length > 0 ? { knowledge_bases: kbs } : {})
          }
        })
      )
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    try {
      const parsed: unknown = JSON.parse(inputs.trim() === "" ? "{}" : inputs)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object")
      setInputError(undefined)
      run.mutate(parsed as Record<string, unknown>)
    } catch {
      setInputError("Inputs must be a JSON object")
    }
  }
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Test an agent">
      <h2>Test an agent</h2>
      <AgentTypeFields
        config={{ ...config }}
        onChange={(next) => setConfig({ ...config, agent_type: String(next.agent_type), type_version: String(next.type_version) })}
      />
      <label>
        Instructions{" "}
        <textarea rows={4} value={config.system_prompt_template} onChange={(e) => setConfig({ ...config, system_prompt_template: e.target.value })} />
      </label>
      <label>
        Inputs (JSON)
        <textarea className="mono" rows={3} value={inputs} onChange={(e) => setInputs(e.target.value)} aria-invalid={inputError !== undefined} />
        {inputError !== undefined && <span className="error-text">{inputError}</span>}
      </label>
      <KnowledgeField value={kbs} onChange={setKbs} />
      <label className="check">
        <input type="checkbox" checked={dry} onChange={(e) => setDry(e.target.checked)} /> Dry run (no tool with side effects is called)
      </label>
      <button type="submit" className="primary" disabled={run.isPending}>{run.isPending ? "Running…" : "Run the agent"}</button>
      {run.error !== null && <ErrorState error={run.error} />}
      {run.data !== undefined && (
        <section aria-label="Test result">
          <p>
            <StatusBadge status={run.data.status} /> {run.data.tokens_used}{" "}
            tokens{run.data.error !== undefined && <span className="error-text">{run.data.error}</span>}
          </p>
          <Json label="Output" value={run.data.output} />
        </section>
      )}
    </form>
  )
}

/** The agent types with their versions, the workspace's saved agent definitions, and a test bench. */
export const AgentsPage = () => {
  const session = useSession()
  const queryClient = useQueryClient()
  const types = useQuery({ queryKey: ["agent-types"], queryFn: () => api((c) => c.agents.types()), staleTime: 60_000 })
  const definitions = useQuery({
    queryKey: ["agent-definitions"],
    queryFn: () => api((c) => c.agents.listDefinitions({ urlParams: { page: 1, page_size: 100 } }))
  })
  const [testing, setTesting] = useState<Draft>({ agent_type: "respond", type_version: "v1", system_prompt_template: "" })
  const [name, setName] = useState("")
  const create = useMutation({
    mutationFn: () =>
      api((c) =>
        c.agents.createDefinition({
          payload: {
            name: name.trim(),
            agent_type: testing.agent_type,
            type_version: testing.type_version,
            system_prompt_template: testing.system_prompt_template,
            llm_config: {},
            type_config: {}
          }
        })
      ),
    onSuccess: () => {
      setName("")
      void queryClient.invalidateQueries({ queryKey: ["agent-definitions"] })
    }
  })
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.agents.deleteDefinition({ path: { id: id } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["agent-definitions"] })
  })
  const canWrite = allows(session.data?.user.role, "build")
  return (
    <section aria-labelledby="agents-title" className="settings wide">
      <h1 id="agents-title">Agents</h1>
      <Query query={types}>
        {(t) => (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Versions</th>
                <th scope="col">What it does</th>
              </tr>
            </thead>
            <tbody>
              {t.items.map((a) => (
                <tr key={a.type}>
                  <td className="mono">{a.type}</td>
                  <td>
                    {a.versions.map((v) => `${v.version}${v.version === a.live_version ? " (live)" : v.status !== "live" ? ` (${v.status})` : ""}`).join(", ")}
                  </td>
                  <td>{a.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Query>
      <h2>Saved agent definitions</h2>
      <Query query={definitions}>
        {(d) =>
          d.items.length === 0 ? <p className="muted">None yet: test an agent below and save it under a name.</p> : (
            <table className="grid">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Instructions</th>
                  <th scope="col">Updated</th>
                  <th scope="col" />
                </tr>
              </thead>
              <tbody>
                {d.items.map((a) => (
                  <tr key={a.id}>
                    <td>{a.name}</td>
                    <td className="mono">{a.agent_type} {a.type_version}</td>
                    <td className="muted small">{a.system_prompt_template.slice(0, 120)}</td>
                    <td>
                      <When at={a.updated_at} />
                    </td>
                    <td>
                      <button
                        type="button"
                        className="link"
                        onClick={() => setTesting({ agent_type: a.agent_type, type_version: a.type_version, system_prompt_template: a.system_prompt_template })}
                      >
                        Test
                      </button>{" "}
                      {canWrite && <button type="button" className="link danger" onClick={() => remove.mutate(a.id)}>Delete</button>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </Query>
      <TestExecute config={testing} setConfig={setTesting} />
      {canWrite && (
        <form className="inline-form" onSubmit={(e) => (e.preventDefault(), name.trim() !== "" && create.mutate())} aria-label="Save as a definition">
          <label>
            Save the tested agent as{" "}
            <input
              value={name}
              onChange={(e) =>
                setName(e.target.value)}
              placeholder="A name"
            />
          </label>
          <button type="submit" disabled={create.isPending || name.trim() === ""}>Save definition</button>
          {(create.error ?? remove.error) !== null && <ErrorState error={create.error ?? remove.error} />}
        </form>
      )}
    </section>
  )
}
