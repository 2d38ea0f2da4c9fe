# efa-sync as a container image: `docker build -t efa-sync .`, then `docker run --rm efa-sync run <job>`.
# Three stages: the build (npm ci with dev dependencies, tsc), the production dependencies alone, and
# the runtime image, which holds node, the built code, sql/ and jobs/, and neither npm nor a compiler.
# Node 22 LTS (Node 20 left maintenance in April 2026); bookworm pins the Debian release.

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here; the build is the next step.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
RUN npx tsc -p tsconfig.json && chmod 0755 dist/src/cli/main.js

FROM node:22-bookworm-slim AS deps
# better-sqlite3 (the GeoPackage writer of `export`) is a native module: its install script fetches a
# prebuilt binary for this Node and libc, or compiles it, for which this stage (only) has a compiler.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 && npm cache clean --force

FROM node:22-bookworm-slim
LABEL org.opencontainers.image.title="efa-sync" \
      org.opencontainers.image.description="Harvest a Mentz EFA public-transport API into PostGIS"
ENV NODE_ENV=production
# Nothing installs or fetches anything at run time: remove npm, npx and corepack from the image.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
    && mkdir /data && chown node:node /data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY package.json ./
COPY sql ./sql
COPY jobs ./jobs
COPY schema ./schema
# The image's own user (uid 1000); /data is where it may write: an embedded database
# (the default --db pglite:./.efa-sync/db lands in /data/.efa-sync/db), reports, metrics.
USER node
WORKDIR /data
ENTRYPOINT ["node", "/app/dist/src/cli/main.js"]
CMD ["--help"]
