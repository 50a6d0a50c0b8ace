# One image for gateway, worker and the one-shot jobs; the command picks the process.
FROM node:24-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false
WORKDIR /app

COPY package.json package-lock.json ./
COPY scripts/prisma-generate.ts scripts/
COPY prisma.legacy.config.ts prisma.read-model.config.ts ./
COPY prisma/legacy/schema.prisma prisma/legacy/
COPY prisma/read-model/schema.prisma prisma/read-model/
# Dev dependencies stay: the processes run TypeScript through tsx, with no separate build.
RUN npm ci --include=dev && npm cache clean --force

COPY . .
USER node
EXPOSE 3000 9464
# node as the process itself: `npm run` ends on SIGTERM without waiting for its child.
CMD ["node", "--import", "tsx", "gateway/src/main.ts"]
