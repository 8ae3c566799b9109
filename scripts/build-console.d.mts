/** Builds the console when its sources changed since the last build (see build-console.mjs). */
export declare const buildConsole: (options?: { readonly force?: boolean; readonly quiet?: boolean }) => Promise<{ readonly built: boolean; readonly shellBytes?: number }>
/** The gzipped bytes of the JavaScript the console's page loads first. */
export declare const shellSize: () => number
