import { useMutation, useQuery } from "@tanstack/react-query"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"

/** An HTML export of the document, prepared by the platform, then a link to download it. */
export const ExportButton = ({ docId }: { readonly docId: string }) => {
  const start = useMutation({ mutationFn: () => api((c) => c.docgen.export({ payload: { document_ids: [docId], format: "html" } })) })
  const job = useQuery({
    queryKey: ["documents", "export", start.data?.id],
    enabled: start.data !== undefined,
    queryFn: () => api((c) => c.docgen.exportJob({ path: { jobId: start.data!.id } })),
    refetchInterval: (q) => (q.state.data?.status === "complete" || q.state.data?.status === "error" ? false : 1000)
  })
  return (
    <span className="export">
      <button type="button" onClick={() => start.mutate()} disabled={start.isPending}>Export (HTML)</button>
      {job.data?.status === "complete" && job.data.download_url !== null && <a href={job.data.download_url} download>Download the export</a>}
      {job.data?.status === "error" && <span className="error-text">{job.data.error}</span>}
      {start.error !== null && <ErrorState error={start.error} />}
    </span>
  )
}
