/**
 * A pure string function whose results are kept, up to `kept` of them (then all are dropped at
 * once): for values derived by hashing, asked for again and again on hot paths.
 */
export const memoized = (kept: number, derive: (key: string) => string) => {
  const known = new Map<string, string>()
  return (key: string): string => {
    const hit = known.get(key)
    if (hit !== undefined) return hit
    if (known.size >= kept) known.clear()
    const value = derive(key)
    known.set(key, value)
    return value
  }
}
