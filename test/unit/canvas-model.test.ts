import { assert, describe, it } from "@effect/vitest"
import { connect, dagOf, docOf, paste, removeNodes, sameDag, updateNode } from "../../console/src/features/builder/dagDoc.js"
import { historyReducer, startHistory } from "../../console/src/features/builder/history.js"
import { nodeProblems, referencesFor } from "../../console/src/features/builder/nodeTypes.js"
import { diffDags, mergedDoc } from "../../console/src/features/versions/versionDiff.js"

// Issue 35: the console's canvas model (pure functions): what the browser tests drive through
// React Flow, checked here case by case.

const agent = (id: string, prompt = "x") => ({
  id,
  type: "agent",
  name: id,
  agent_config: { agent_type: "respond", type_version: "v1", system_prompt_template: prompt }
})

describe("the canvas model", () => {
  it("keeps what it does not edit, refuses an edge that closes a cycle, and renames a node's edges with it", () => {
    const doc = docOf({
      nodes: [agent("a"), agent("b"), agent("c")],
      edges: [{ from: "a", to: "b" }, { from: "b", to: "c" }],
      outputs: [{ name: "o", value: "{{nodes.c.output.text}}" }],
      extra: 1
    })
    assert.deepStrictEqual(dagOf(doc).outputs, [{ name: "o", value: "{{nodes.c.output.text}}" }])
    assert.strictEqual(dagOf(doc).extra, 1)
    assert.isUndefined(connect(doc, "c", "a"), "c -> a closes a -> b -> c")
    assert.isUndefined(connect(doc, "a", "a"))
    assert.isUndefined(connect(doc, "a", "b"), "already there")
    assert.deepStrictEqual(connect(doc, "a", "c")?.edges.at(-1), { from: "a", to: "c" })
    const renamed = updateNode(doc, "b", { ...doc.nodes[1], id: "middle" })
    assert.deepStrictEqual(renamed.edges, [{ from: "a", to: "middle" }, { from: "middle", to: "c" }])
    assert.deepStrictEqual(removeNodes(doc, new Set(["b"])).edges, [])
    assert.isTrue(
      sameDag(
        docOf({ edges: [], nodes: [agent("a")] }),
        docOf({
          nodes: [{ name: "a", agent_config: { system_prompt_template: "x", type_version: "v1", agent_type: "respond" }, type: "agent", id: "a" }],
          edges: []
        })
      ),
      "key order does not matter"
    )
  })

  it("pastes copies under fresh ids with the edges among them; undo takes back a run of one field's changes at once", () => {
    const doc = docOf({ nodes: [agent("a"), agent("b")], edges: [{ from: "a", to: "b" }] })
    const { doc: pasted, ids } = paste(doc, doc.nodes, doc.edges)
    assert.deepStrictEqual(ids, ["a_2", "b_2"])
    assert.deepStrictEqual(pasted.edges.at(-1), { from: "a_2", to: "b_2" })
    let h = startHistory(doc)
    for (const text of ["H", "He", "Hey"]) h = historyReducer(h, { kind: "change", doc: updateNode(h.present, "a", agent("a", text)), key: "a.prompt" })
    h = historyReducer(h, { kind: "change", doc: removeNodes(h.present, new Set(["b"])) })
    assert.strictEqual(h.past.length, 2)
    h = historyReducer(h, { kind: "undo" })
    assert.strictEqual(h.present.nodes.length, 2)
    h = historyReducer(h, { kind: "undo" })
    assert.strictEqual(h.present, doc)
    h = historyReducer(h, { kind: "redo" })
    assert.strictEqual((h.present.nodes[0].agent_config as { system_prompt_template: string }).system_prompt_template, "Hey")
  })

  it("checks a node against its own type's schema, by field; offers the references upstream of it", () => {
    assert.strictEqual(nodeProblems(agent("a")).size, 0)
    const bad = nodeProblems({ id: "e", type: "send_email", send_email_config: { subject: 3 } })
    assert.isTrue(bad.has("send_email_config.to"), [...bad.keys()].join())
    assert.isTrue(bad.has("send_email_config.subject"))
    assert.isTrue(nodeProblems({ id: "9bad", type: "agent", agent_config: agent("x").agent_config }).has("id"))
    const refs = referencesFor({ properties: { question: {} } }, [agent("draft")]).map((r) => r.path)
    assert.includeMembers(refs, ["workflow_input.question", "nodes.draft.output.text", "run.id"])
  })

  it("diffs two versions: nodes added, removed and changed with the field and both values, edges; positions are not changes", () => {
    const before = docOf({ nodes: [agent("a", "old"), agent("gone")], edges: [{ from: "a", to: "gone" }] })
    const after = docOf({ nodes: [{ ...agent("a", "new"), position: { x: 5, y: 5 } }, agent("new")], edges: [{ from: "a", to: "new" }] })
    const diff = diffDags(before, after)
    assert.deepStrictEqual(diff.nodes.map((n) => [n.id, n.kind]), [["a", "changed"], ["new", "added"], ["gone", "removed"]])
    assert.deepStrictEqual(diff.nodes[0].fields, [{ path: "agent_config.system_prompt_template", before: "old", after: "new" }])
    assert.deepStrictEqual(diff.edgesAdded, [{ from: "a", to: "new" }])
    assert.deepStrictEqual(diff.edgesRemoved, [{ from: "a", to: "gone" }])
    assert.deepStrictEqual(mergedDoc(before, after).nodes.map((n) => n.id), ["a", "new", "gone"])
    assert.strictEqual(diffDags(after, after).nodes.length, 0)
  })
})
