# syntax=docker/dockerfile:1
# Runifold images (docs/deploy.md). Targets:
#   web      the Next.js standalone server (node start.mjs): the MCP endpoint, the console, /api/health
#   migrate  the one-shot job (node migrate.mjs): migrations, then RUNIFOLD_SEED (default: a first admin)
#   worker   runifold-worker serving RUNIFOLD_WORKFLOWS (default: the bundled demo module)
# What each target holds is assembled by scripts/deploy/assemble.ts, which tests/deploy also runs
# without a container: docker build --target web -t runifold-web .   (and --target migrate / worker)

ARG NODE_IMAGE=node:20-bookworm-slim

# Dependencies only, so source edits keep this layer. Install scripts are not needed to build (the
# embedded PostgreSQL is for `npm start`, never for an image).
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1 npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/
COPY packages/cli/package.json packages/cli/
COPY packages/client/package.json packages/client/
COPY packages/store/package.json packages/store/
COPY packages/server/package.json packages/server/
RUN npm ci --ignore-scripts

# next build writes .next/standalone (next.config.ts); assemble.ts adds the static assets, the
# migrations, the bundled entry points, and the worker project installed from the packed SDK.
# Nothing here depends on the deployment's URL: HSTS and the page CSP are decided per request by
# proxy.ts from the running server's RUNIFOLD_PUBLIC_URL, so one image serves http and https.
FROM deps AS build
COPY . .
RUN npx next build \
 && npx tsx scripts/deploy/assemble.ts --web /out/web --worker /out/worker

# One unprivileged user for every target; the application files stay root-owned (read-only to it).
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
RUN groupadd --system --gid 10001 runifold \
 && useradd --system --uid 10001 --gid runifold --no-create-home --shell /usr/sbin/nologin runifold
WORKDIR /app

FROM runtime AS migrate
COPY --from=build /out/web ./
# The first admin's password goes to a 0600 file here when stdout is not a terminal (mount a volume).
RUN mkdir -p /app/.data && chown runifold:runifold /app/.data
USER runifold
CMD ["node", "migrate.mjs"]

FROM runtime AS worker
COPY --from=build /out/worker ./
USER runifold
# A team's module replaces the demo: mount it at /app/workflows (imports of @runifold/sdk and zod
# resolve from /app/node_modules), or build FROM this image and COPY it there.
ENV RUNIFOLD_WORKFLOWS=/app/workflows/index.js
ENTRYPOINT ["node", "/app/node_modules/@runifold/sdk/dist/bin/runifold-worker.js"]

# Last, so a plain `docker build .` gives the web image.
FROM runtime AS web
COPY --from=build /out/web ./
# Next writes its cache under .next/cache; nothing else is writable.
RUN mkdir -p /app/.next/cache && chown runifold:runifold /app/.next/cache
USER runifold
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# Slim images have no curl: node's fetch. 200 once the store answers and is migrated (docs/deploy.md).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "start.mjs"]
