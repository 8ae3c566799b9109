import { Layer } from "effect"
import { Catalog } from "./Catalog.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { Functions } from "./Functions.js"
import { IntegrationsHttp } from "./http/IntegrationsHttp.js"
import { Installs } from "./Installs.js"

/** The integrations service: the catalog, installs and their credentials, function calls. */
export const IntegrationsLive = Layer.mergeAll(Catalog.Default, Installs.Default, Functions.Default).pipe(
  Layer.provideMerge(CatalogRepo.Default)
)

export const IntegrationsHttpLive = IntegrationsHttp
