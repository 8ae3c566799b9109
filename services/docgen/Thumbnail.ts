import { Resvg } from "@resvg/resvg-js"

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * A 320x240 PNG of a template: its name and its first lines of text on a page, drawn as SVG and
 * rendered with resvg (a WebAssembly-free native module from npm; no office suite or browser).
 */
export const thumbnailPng = (template: { readonly name: string; readonly kind: string; readonly text: string }) => {
  const lines = template.text.split(/\n+/).map((l) => l.trim()).filter((l) => l !== "").slice(0, 9)
  const body = lines.map((l, i) => `<text x="24" y="${84 + i * 16}" font-size="11" fill="#444">${escapeXml(l.slice(0, 48))}</text>`).join("")
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240" viewBox="0 0 320 240">
    <rect width="320" height="240" fill="#f3f4f6"/>
    <rect x="12" y="12" width="296" height="216" rx="6" fill="#ffffff" stroke="#d1d5db"/>
    <rect x="12" y="12" width="296" height="44" rx="6" fill="${template.kind === "pptx" ? "#c2410c" : template.kind === "docx" ? "#1d4ed8" : "#047857"}"/>
    <text x="24" y="40" font-size="15" font-weight="bold" fill="#ffffff">${escapeXml(template.name.slice(0, 32))}</text>
    <text x="296" y="40" font-size="11" text-anchor="end" fill="#ffffff">${template.kind.toUpperCase()}</text>
    ${body}
  </svg>`
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: "sans-serif" } }).render().asPng()
}
