import { useNavigate, useSearch } from "@tanstack/react-router"
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

/** Administration of the workspace: people and groups, API keys, its settings, MCP servers under review, the audit log. */
export const AdminPage = () => {
  const search = useSearch({ from: "/app/admin" })
  const navigate = useNavigate()
  const tab: Tab = TABS.find((t) => t === search.tab) ?? "people"
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Administration</h1>
      <Tabs
        tabs={TABS}
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
