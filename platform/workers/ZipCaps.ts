import { unzipSync, zipSync } from "fflate"
import { refuse } from "./TaskRefusal.js"

// Worker side: called by tasks on the threads of the pool.

export interface ZipCaps {
  /** Entries an archive may hold. */
  readonly maxEntries: number
  /** Bytes all its entries may hold once inflated. */
  readonly maxInflatedBytes: number
  /** Compressed over inflated size below which an entry of over 1 MiB is taken for a bomb (Apache POI's 0.01). */
  readonly minRatio: number
}

export const OFFICE_ZIP_CAPS: ZipCaps = { maxEntries: 5_000, maxInflatedBytes: 64 * 1024 * 1024, minRatio: 0.01 }

const RATIO_FLOOR_BYTES = 1024 * 1024

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`

/**
 * An archive's entries inflated within the caps (fflate), or a refusal (`INPUT_LIMIT_EXCEEDED`;
 * `notZip` when it is no zip at all). Each entry inflates into a buffer of its declared size, so an
 * entry that lies about its size is cut there, never grown. The entries are packed again without
 * compression: a reader that opens the result (mammoth, JSZip) reads exactly the bytes checked here.
 */
export const checkedZip = (bytes: Uint8Array, notZip: { readonly code: string; readonly message: string }, caps: ZipCaps = OFFICE_ZIP_CAPS): Uint8Array => {
  let entries = 0
  let inflated = 0
  let files: ReturnType<typeof unzipSync>
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        entries++
        inflated += file.originalSize
        if (entries > caps.maxEntries) refuse("INPUT_LIMIT_EXCEEDED", `The archive holds more than ${caps.maxEntries} entries`)
        if (inflated > caps.maxInflatedBytes) refuse("INPUT_LIMIT_EXCEEDED", `The archive inflates to more than ${mib(caps.maxInflatedBytes)}`)
        if (file.originalSize > RATIO_FLOOR_BYTES && file.size / file.originalSize < caps.minRatio) {
          refuse(
            "INPUT_LIMIT_EXCEEDED",
            `The archive's entry ${file.name} inflates ${Math.round(file.originalSize / Math.max(1, file.size))} times its size (a compression bomb)`
          )
        }
        return true
      }
    })
  } catch (error) {
    if (error instanceof Error && error.name === "TaskRefusal") throw error
    return refuse(notZip.code, notZip.message)
  }
  return zipSync(files, { level: 0 })
}
