import { useNavigate, useSearch } from "@tanstack/react-router"
import type { Capability } from "../../../../schemas/Authorization"
import { allows, useSession } from "../../api/session"
import { TabPanel, Tabs } from "../../ui/Tabs"
import { AuditTab } from "./AuditTab"
import { GroupsTab } from "./GroupsTab"
import { IntegrationsTab } from "./IntegrationsTab"
import { KeysTab } from "./KeysTab"
import { McpTab } from "./McpTab"
import { PeopleTab } from "./PeopleTab"
import { ProvidersTab } from "./ProvidersTab"
import { WorkspaceTab } from "./WorkspaceTab"

const TABS = ["people", "groups", "keys", "workspace", "providers", "integrations", "mcp", "audit"] as const
type Tab = (typeof TABS)[number]
const NAMES: Record<Tab, string> = {
  people: "People",
  groups: "Groups",
  keys: "API keys",
  workspace: "Workspace",
  providers: "Model providers",
  integrations: "Integrations",
  mcp: "MCP servers",
  audit: "Audit log"
}

/** The capability each tab's writes need (schemas/Authorization.ts); API keys are every member's own. */
const NEEDS: Record<Tab, Capability | undefined> = {
  people: "administerUsers",
  groups: "administerGroups",
  keys: undefined,
  workspace: "administerTenant",
  providers: "administerRuns",
  integrations: "administerIntegrations",
  mcp: "administerIntegrations",
  audit: "administerUsers"
}

/**
 * Administration of the workspace: people and groups, API keys, its settings, MCP servers under
 * review, the audit log. Only the tabs the caller's role may use are offered.
 */
export const AdminPage = () => {
  const search = useSearch({ from: "/app/admin" })
  const navigate = useNavigate()
  const role = useSession().data?.user.role
  const shown = TABS.filter((t) => {
    const needs = NEEDS[t]
    return needs === undefined || allows(role, needs)
  })
  const tab: Tab = shown.find((t) => t === search.tab) ?? shown[0] ?? "keys"
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Administration</h1>
      <Tabs
        tabs={shown}
        selected={tab}
        onSelect={(t) => void navigate({ to: "/admin", search: { tab: t } })}
        label="Administration"
        name={(t) => NAMES[t]}
        idPrefix="admin"
      />
      <TabPanel idPrefix="admin" tab={tab}>
        {tab === "people" && <PeopleTab />}
        {tab === "groups" && <GroupsTab />}
        {tab === "keys" && <KeysTab />}
        {tab === "workspace" && <WorkspaceTab />}
        {tab === "providers" && <ProvidersTab />}
        {tab === "integrations" && <IntegrationsTab />}
        {tab === "mcp" && <McpTab />}
        {tab === "audit" && <AuditTab />}
      </TabPanel>
    </section>
  )
}
