/** The platform's compiled tree (see build-server.mjs). */
export declare const serverDist: string
/** The platform's entry in the compiled tree. */
export declare const serverEntry: string
/** Compiles the platform when its sources changed since the last build (see build-server.mjs). */
export declare const buildServer: (options?: { readonly force?: boolean }) => Promise<{ readonly built: boolean }>
/** JavaScript source with each character outside ASCII written as its `\u` escape. */
export declare const asciiOnly: (source: string) => string
