# One image for gateway, worker and the one-shot jobs; the command picks the process.
# Three stages: compile with the dev dependencies, install the production dependencies alone,
# then a runtime holding only those and the compiled JavaScript, run as the unprivileged `node`.

FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run generate && npm run build

FROM node:24-bookworm-slim AS production-dependencies
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
COPY package.json package-lock.json ./
# No install scripts: the only one is this project's own (generate and build), done above.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
WORKDIR /app
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
# The npm scripts (`npm run clients`, `npm run db:migrate`, ...) stay usable in the image; their
# stale-build check finds no sources here (no tsconfig.build.json) and goes straight to the
# compiled files, whatever the times the copies left. test/operations/image-layout.test.ts assembles this
# stage from its COPY and ENV lines and runs the jobs, the gateway and the worker from it.
COPY package.json ./
COPY scripts/build.mjs scripts/
USER node
EXPOSE 3000 9464
# node as the process itself: `npm run` ends on SIGTERM without waiting for its child.
# Heap bounds as in `npm run gateway` (docs/decisions/0005).
CMD ["node", "--max-old-space-size=128", "--max-semi-space-size=16", "--heap-growing-percent=100", "dist/gateway/src/main.js"]
