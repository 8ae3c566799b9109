import { createHash } from "node:crypto"

/**
 * A UUID (version-4 shaped) fixed by `key`: the id of something that must exist once per key
 * (the run of a fire time, a delivery, a message), so that doing the work again finds it.
 */
export const derivedUuid = (key: string) => {
  const h = createHash("sha256").update(key).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}
