# syntax=docker/dockerfile:1
# cdn-collector image: `docker build -t cdn-collector .` (see docs/deploy.md).
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: dev dependencies + tsc; nothing of this stage reaches the runtime image but dist/ ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would run tsc before the sources are copied (and keeps this layer cached on source edits).
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies only, non-root ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# glibc's malloc keeps an arena per thread that ever allocated (node's main thread, libuv's pool for gzip and files,
# V8's helpers), each holding its freed memory: two arenas keep the daemon's steady RSS 5–8 MB lower (BENCHMARKS.md).
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` (tsc) is a dev-time step and typescript is not installed here.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# A default config that takes everything account-specific from the environment (CDN_*, INFLUX_*); mount your own over it.
COPY config/collector.docker.yaml /etc/cdn-collector/collector.yaml
# Checkpoints and dead letters live here; the directory must belong to the unprivileged user before VOLUME snapshots it.
RUN mkdir -p /var/lib/cdn-collector && chown 1000:1000 /var/lib/cdn-collector
# uid 1000 is the image's `node` user; numeric so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
VOLUME ["/var/lib/cdn-collector"]
# /healthz and /metrics (config http.port).
EXPOSE 9464
# node itself: the slim image has neither curl nor wget. 503 (a job lagging more than http.maxLag) counts as unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Executed directly, so the V8 memory flags of its `#!/usr/bin/env -S node …` line apply.
ENTRYPOINT ["/app/bin/cdn-collector.js"]
CMD ["run", "--config", "/etc/cdn-collector/collector.yaml"]
