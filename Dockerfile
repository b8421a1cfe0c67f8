# One image for the API, the worker, the sandbox acquirer, the codec server and the admin/migrate
# commands; the command chooses the role (see docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY workers ./workers
COPY scripts ./scripts
ENV NODE_ENV=production
USER node
EXPOSE 3000 3100 3200
CMD ["node_modules/.bin/tsx", "src/api/main.ts"]
