# syntax=docker/dockerfile:1.7
#
# One Dockerfile, one small image per service. Build a service with its target:
#   docker build --target gateway     -t htm/gateway .
#   docker build --target identity    -t htm/identity .
#   docker build --target jobs        -t htm/jobs .
#   docker build --target jobs-worker -t htm/jobs-worker .
#   docker build --target payments    -t htm/payments .
#   docker build --target admin       -t htm/admin .
#   docker build --target notifications -t htm/notifications .
#   docker build --target analytics   -t htm/analytics .
#   docker build --target site-check  -t htm/site-check .   (with Debian's Chromium)
# (docker compose build builds them all; image names are htm/<target>, see deploy/k8s.)
#
# Stages: deps (npm ci, dev dependencies included) → build (web app with Vite, every service
# bundled with esbuild into dist/<service>/, native externals installed per service) →
# runtime (node:24-slim, non-root uid 1000, only dist/<service>/ and its few externals).

ARG NODE_IMAGE=node:24-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# Manifests first: this layer is reused until a package.json or the lockfile changes.
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/events/package.json packages/events/
COPY services/identity/package.json services/identity/
COPY services/jobs/package.json services/jobs/
COPY services/payments/package.json services/payments/
COPY services/admin/package.json services/admin/
COPY services/notifications/package.json services/notifications/
COPY services/analytics/package.json services/analytics/
COPY services/site-check/package.json services/site-check/
COPY services/gateway/package.json services/gateway/
COPY web/package.json web/
RUN --mount=type=cache,target=/root/.npm npm ci --include=dev

# ---------------------------------------------------------------------------------------------
FROM deps AS build
COPY tsconfig.base.json tsconfig.json ./
COPY scripts ./scripts
COPY packages ./packages
COPY services ./services
COPY web ./web
# The web app (served by the gateway) and one bundle per service (+ the jobs worker).
RUN npm run build -w web && npm run build:services
# Each bundle's package.json lists only the external native packages it loads at start
# (sharp for jobs); install those, production only, next to the bundle.
RUN --mount=type=cache,target=/root/.npm \
    for s in gateway identity jobs payments admin notifications analytics site-check; do \
      (cd "dist/$s" && npm install --omit=dev --no-package-lock --no-audit --no-fund) || exit 1; \
    done

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/tmp/htm-data \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
# Local uploads (jobs without S3_BUCKET) go to /app/uploads: the one writable folder of the image
# (k8s mounts an emptyDir or a volume there; the root filesystem is read-only).
RUN mkdir -p /app/uploads && chown 1000:1000 /app/uploads
# Files stay owned by root (read-only for the service); the process runs as uid 1000 ("node").
USER 1000:1000
STOPSIGNAL SIGTERM

# ---------------------------------------------------------------------------------------------
FROM runtime AS gateway
COPY --from=build /src/dist/gateway/ /app/
COPY --from=build /src/web/dist/ /app/web/
ENV PORT=8080 WEB_DIST=/app/web
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

FROM runtime AS identity
COPY --from=build /src/dist/identity/ /app/
ENV PORT=8081
EXPOSE 8081
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

FROM runtime AS jobs
COPY --from=build /src/dist/jobs/ /app/
# Two glibc malloc arenas: libvips (sharp) allocates on libuv's threads, and glibc's default of
# 8 arenas per core let the freed memory of each thread's arena stay with the process (RSS
# climbed through a 30-minute soak with the JS heap flat). sharp reads this variable: without it, under glibc, it cuts libvips to one thread.
ENV PORT=8082 UPLOAD_DIR=/app/uploads MALLOC_ARENA_MAX=2
EXPOSE 8082
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

# The BullMQ timer worker: same bundle folder as jobs (shared migrations), its own entry.
FROM runtime AS jobs-worker
COPY --from=build /src/dist/jobs/ /app/
ENV PORT=8085 WORKER_PORT=8085 UPLOAD_DIR=/app/uploads MALLOC_ARENA_MAX=2
EXPOSE 8085
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "worker.js"]

FROM runtime AS payments
COPY --from=build /src/dist/payments/ /app/
ENV PORT=8083
EXPOSE 8083
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

FROM runtime AS admin
COPY --from=build /src/dist/admin/ /app/
ENV PORT=8084
EXPOSE 8084
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

FROM runtime AS notifications
COPY --from=build /src/dist/notifications/ /app/
ENV PORT=8086
EXPOSE 8086
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

# `node rebuild.js` in this image is npm run analytics:rebuild (drops the projection, replays the streams).
FROM runtime AS analytics
COPY --from=build /src/dist/analytics/ /app/
ENV PORT=8087
EXPOSE 8087
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]

# The runtime of the machine health check: the same as `runtime`, plus Debian's Chromium (the check
# never downloads a browser) and fonts for its screenshots, installed before the switch to uid 1000.
FROM ${NODE_IMAGE} AS runtime-chromium
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/tmp/htm-data \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
USER 1000:1000
STOPSIGNAL SIGTERM

# Each check runs one browser through the service's own egress proxy; `lighthouse-worker.js` is
# Lighthouse's child process (one per measured size). Chromium writes its profile under HOME.
FROM runtime-chromium AS site-check
COPY --from=build /src/dist/site-check/ /app/
ENV PORT=8088 HOME=/tmp SITE_CHECK_CHROMIUM_PATH=/usr/bin/chromium
EXPOSE 8088
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "./otel-register.js", "main.js"]
