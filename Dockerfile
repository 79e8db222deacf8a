# syntax=docker/dockerfile:1
# The default target is the production image: no PostgreSQL inside, DATABASE_URL (or POSTGRESQL_HOST...) required.
# `--target embedded` builds an image that runs its own PostgreSQL, with its data in the /data volume.

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# Production dependencies without the optional ones: those are the embedded PostgreSQL's binaries (60 MB).
FROM node:24.21.0-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional && npm cache clean --force

FROM node:24.21.0-bookworm-slim AS dependencies-embedded
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

FROM node:24.21.0-bookworm-slim AS embedded
WORKDIR /app
COPY --from=dependencies-embedded /app/node_modules ./node_modules
COPY package.json config.yaml ./
COPY migrations ./migrations
COPY --from=build /app/dist ./dist
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
USER node
ENV HOST=0.0.0.0 PORT=3567 ALLOW_EMBEDDED_DATABASE=true EMBEDDED_DATA_DIR=/data
EXPOSE 3567
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/healthcheck.js"]
CMD ["node", "dist/server.js"]

FROM node:24.21.0-bookworm-slim AS production
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json config.yaml ./
COPY migrations ./migrations
COPY --from=build /app/dist ./dist
USER node
ENV HOST=0.0.0.0 PORT=3567 ALLOW_EMBEDDED_DATABASE=false
EXPOSE 3567
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "dist/healthcheck.js"]
CMD ["node", "dist/server.js"]
