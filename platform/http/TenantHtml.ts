import { HttpServerResponse } from "@effect/platform"

/**
 * What a browser may do with HTML a tenant made (a template's rendering, an exported document):
 * nothing runs (no script, no plugin; `sandbox` also makes it a unique origin without the
 * platform's cookies), images and inline styles show, nothing frames it.
 */
export const TENANT_HTML_POLICY =
  "default-src 'none'; img-src data: https:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox"

/** Tenant HTML as a response: that policy, `nosniff`, and for a download `attachment` with its file name. */
export const tenantHtml = (html: string, download?: { readonly filename: string }) =>
  HttpServerResponse.text(html, {
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": TENANT_HTML_POLICY,
      "x-content-type-options": "nosniff",
      ...(download !== undefined ? { "content-disposition": `attachment; filename="${download.filename.replace(/[^A-Za-z0-9._-]/g, "_")}"` } : {})
    }
  })
