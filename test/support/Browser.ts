import { Effect, Exit } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

/** Decided by GlobalSetup.ts: Debian's chromium (or CHROMIUM_PATH), or none (browser tests skipped, said so). */
export const chromiumPath = process.env.TEST_CHROMIUM_PATH ?? ""
export const browserAvailable = chromiumPath !== "" && existsSync(chromiumPath)

/** Where the tests save screenshots of the console's pages (the README's), when CONSOLE_SCREENSHOTS names a folder. */
const screenshots = process.env.CONSOLE_SCREENSHOTS

let shared: Promise<Browser> | undefined

/**
 * The test worker's Chromium, launched at its first use and again if it went away; it ends with
 * the worker. A launch cost about 1.6 s and 2-3 s of CPU, for each of about 25 tests; each test's
 * pages are still in a browser context of their own (`watchedPage`), closed with its scope.
 */
export const workerBrowser = Effect.promise(async () => {
  const current = await shared?.catch(() => undefined)
  if (current?.isConnected() === true) return current
  shared = chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] })
  return shared
})

export interface WatchedPage {
  readonly page: Page
  readonly context: BrowserContext
  /** Page errors, console errors and warnings, failed requests and error answers seen so far. */
  readonly problems: () => ReadonlyArray<string>
  /** Saves a screenshot as `<name>.png` when CONSOLE_SCREENSHOTS is set. */
  readonly shot: (name: string) => Effect.Effect<void>
}

/**
 * A page in a new browser context whose every problem is recorded: uncaught errors, console
 * errors and warnings, requests that fail, answers of 400 and above (except those `expected`
 * names, a test's deliberate refusals).
 */
export const watchedPage = (browser: Browser, expected: ReadonlyArray<RegExp> = [], options: { readonly foreignOrigins?: ReadonlyArray<string> } = {}) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<WatchedPage> => {
      const context = await browser.newContext({ viewport: { width: 1360, height: 860 } })
      const page = await context.newPage()
      const seen: Array<string> = []
      // Pages of another origin (an identity provider's) are not the console's: what goes wrong there is theirs.
      const ours = () => !(options.foreignOrigins ?? []).includes(new URL(page.url()).origin)
      const record = (problem: string) => void (ours() ? seen.push(problem) : undefined)
      page.on("pageerror", (e) => record(`page error: ${e.message}`))
      page.on("console", (m) => {
        if (m.type() !== "error" && m.type() !== "warning") return
        // Chromium logs each error answer too: an expected one is not a problem here either.
        const status = /^Failed to load resource: the server responded with a status of (\d+)/.exec(m.text())?.[1]
        if (status !== undefined && expected.some((e) => e.test(`${status} ${m.location().url}`))) return
        record(`console ${m.type()}: ${m.text()}`)
      })
      page.on("requestfailed", (r) => {
        // A stream closed by the page itself (run ended) is not a failure, nor is a request the
        // page gave up on (a navigation away, a query cancelled): Chromium says ERR_ABORTED.
        const why = r.failure()?.errorText ?? ""
        if (!/\/stream$/.test(new URL(r.url()).pathname) && why !== "net::ERR_ABORTED") record(`request failed: ${r.method()} ${r.url()} ${why}`)
      })
      page.on("response", (r) => {
        if (r.status() >= 400 && !expected.some((e) => e.test(`${r.status()} ${r.url()}`))) record(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`)
      })
      return {
        page,
        context,
        problems: () => [...seen],
        shot: (name) =>
          screenshots === undefined
            ? Effect.void
            : Effect.promise(async () => {
              mkdirSync(screenshots, { recursive: true })
              await page.screenshot({ path: path.join(screenshots, `${name}.png`) })
            })
      }
    }),
    ({ context, page, problems }, exit) =>
      Effect.promise(async () => {
        // A failed test says what the page showed and what went wrong on it (a flake is read from the log).
        if (Exit.isFailure(exit)) {
          const text = await page.innerText("body", { timeout: 2000 }).catch((e: unknown) => `(unreadable: ${String(e)})`)
          console.error(
            `The page when the test failed: ${page.url()}\nproblems: ${JSON.stringify(problems())}\ntext: ${text.replace(/\s+/g, " ").slice(0, 2000)}`
          )
        }
        await context.close()
      })
  )

/** The texts of the elements `selector` matches that the page lays out on more than one line. */
export const wrappedText = (page: Page, selector: string) =>
  Effect.promise(() =>
    page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].flatMap((element) => {
      const range = document.createRange()
      range.selectNodeContents(element)
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)))
      return lines.size > 1 ? [element.textContent ?? ""] : []
    })`)
  ).pipe(Effect.map((texts) => (Array.isArray(texts) ? texts.map(String) : [String(texts)])))

/** Signs in through the console's form (email first, then the password). */
export const signIn = (page: Page, baseUrl: string, email: string, password: string, at = "/") =>
  Effect.promise(async () => {
    await page.goto(`${baseUrl}${at}`)
    await page.getByLabel("Email").fill(email)
    await page.getByRole("button", { name: "Continue" }).click()
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Sign in" }).click()
  })
