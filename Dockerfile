# The kube-gateway image the Helm chart (charts/kube-gateway) runs. Multi-stage, on the Node major
# the project is developed on (20). Build: docker build -t kube-gateway .
FROM node:20-bookworm AS build
WORKDIR /app
# better-sqlite3 compiles from source with Node's headers, which live under /usr/local in this image.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json .npmrc ./
COPY bin ./bin
COPY src ./src
COPY tsconfig.json ./
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/build ./build
# The node image's unprivileged user (uid 1000), as the chart's securityContext expects.
USER 1000:1000
EXPOSE 6443
ENTRYPOINT ["node", "--v8-pool-size=2", "/app/bin/kube-gateway.js"]
