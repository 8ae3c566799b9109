import type { Workflow } from "../../../../schemas/Workflow"
import { DocumentTriggersCard, EmailCard, PublicAppCard } from "./OtherTriggers"
import { ScheduleCard } from "./ScheduleCard"
import { WebhooksCard } from "./WebhooksCard"

/** Every way a run of the AI Employee starts besides the API: schedule, webhooks, documents, email, the public app. */
export const TriggersPanel = ({ workflow, canWrite }: { readonly workflow: Workflow; readonly canWrite: boolean }) => (
  <div className="settings">
    <ScheduleCard workflowId={workflow.id} canWrite={canWrite} />
    <WebhooksCard workflowId={workflow.id} inputSchema={workflow.dag_definition.input_schema} canWrite={canWrite} />
    <DocumentTriggersCard workflowId={workflow.id} canWrite={canWrite} />
    <EmailCard workflowId={workflow.id} canWrite={canWrite} />
    <PublicAppCard workflow={workflow} canWrite={canWrite} />
  </div>
)
