# One image for the API, the worker, the sandbox acquirer, the codec server and the admin/migrate
# commands; the command chooses the role (see docker-compose.yml). The build stage compiles
# TypeScript to dist/ (`npm run build`); the image runs that JavaScript with node itself, in exec
# form, so SIGTERM reaches the process that drains (no tsx or npm in between to relay or cut it).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY contracts ./contracts
COPY workflows ./workflows
COPY activities ./activities
COPY workers ./workers
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# The worker bundles its workflows at start from dist/workflows (the compiled .js).
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000 3100 3200
# Roles: node dist/src/api/main.js | dist/workers/main.js | dist/src/provider/sandbox/main.js |
# dist/scripts/codec-server.js | dist/src/db/migrate.js | dist/src/admin/cli.js <command>
CMD ["node", "dist/src/api/main.js"]
