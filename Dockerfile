# syntax=docker/dockerfile:1
# The platform's image: `docker build -t builder-platform .` (docker-compose.yml builds it too).
# One image for every ROLE; node runs under tini as PID 1, so SIGTERM reaches it and the platform
# drains (SHUTDOWN_GRACE_SECONDS, 10 s by default) before the container's stop timeout.
ARG NODE_IMAGE=node:20-bookworm-slim

# Everything needed to build the console (its toolchain is in devDependencies) and to compile the
# platform's TypeScript to the JavaScript it runs (dist/server).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# The fixes of patches/ to bundled packages (npm's postinstall does this outside the image).
RUN npx patch-package && node scripts/build-console.mjs && node scripts/build-server.mjs

# Only what the platform runs with.
FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

FROM ${NODE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /data && chown node:node /data
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist/server ./dist/server
COPY --from=build /app/console/dist ./console/dist
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness: the process serves. Readiness (database, runners) is GET /ready.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=32", "--enable-source-maps", "dist/server/services/gateway/main.js"]
