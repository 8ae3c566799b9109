/** The Set-Cookie headers of a response, by cookie name (the raw header, attributes included). */
export const setCookies = (headers: Headers): Record<string, string> =>
  Object.fromEntries(headers.getSetCookie().map((line) => [line.slice(0, line.indexOf("=")), line]))

/** The value part of a Set-Cookie header. */
export const cookieValue = (line: string | undefined) => line?.slice(line.indexOf("=") + 1).split(";")[0]

/** A Cookie request header from Set-Cookie lines. */
export const cookieHeader = (cookies: Record<string, string>, names: ReadonlyArray<string>) =>
  names.map((name) => `${name}=${cookieValue(cookies[name])}`).join("; ")
