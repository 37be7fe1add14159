# nodesup as the container's entrypoint (docs/kubernetes.md). Build from the repository root:
#   docker build -t nodesup-example .
#   docker run --rm -p 3000:3000 -p 9209:9209 nodesup-example
# Runs examples/http-server/server.js by default; pass another script (and flags) as the command:
#   docker run --rm nodesup-example app/server.js --config /etc/nodesup/supervisor.config.mjs
# Node 26: the Active LTS (October 2026 to its end of life in April 2029), the longest-supported
# line CI runs the suite on (.ci/run), and the one where the heap profiler runs in-process (v8.startHeapProfile).
# 20 is past its end of life; 22 and 24 are in maintenance, security fixes only.
FROM node:26-slim

# PID 1. The kernel gives PID 1 no default signal actions, and every orphan in the container is
# re-parented to it. nodesup handles SIGTERM/SIGINT itself and Node reaps nodesup's own workers,
# but a worker's child that outlives its worker (a worker SIGKILLed by the OOM killer leaves its
# children behind) becomes PID 1's child, and Node never wait()s for children it did not spawn:
# those would stay zombies for the life of the pod. tini is a tiny init that reaps every orphan
# and forwards signals to its one child, the nodesup primary, as soon as they arrive; so SIGTERM
# from the kubelet still reaches the primary directly, which drains the workers itself.
# Not `tini -g`: signalling the whole process group would SIGTERM the workers behind the primary's
# back and drop their in-flight requests. Chosen over `docker run --init` and Kubernetes'
# `shareProcessNamespace: true` because it travels with the image: correct under any runtime,
# whoever forgets the flag. (With --init as well, the outer init reaps; tini only warns.)
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
# Only what runs: the CLI, the library and the examples. Files stay root-owned and read-only to
# the app user; nodesup writes nothing here (its control socket goes to $TMPDIR or NODESUP_RUN_DIR).
COPY bin ./bin
COPY src ./src
COPY examples ./examples

# The app listens on PORT; HOST is where the example binds (0.0.0.0: reachable from the Service).
ENV PORT=3000 HOST=0.0.0.0
EXPOSE 3000 9209

# Non-root: uid 1000, the `node` user of the official image (runAsNonRoot in the manifests).
USER node

# Exec form: no shell in between, so signals reach tini and from it the primary at once.
# Metrics on 0.0.0.0:9209, not nodesup's loopback default: inside a pod, the kubelet's probes
# (/healthz, /readyz) and Prometheus reach the container through the pod IP, never through its
# loopback, and the pod's network namespace is the container's own, reachable only from the
# cluster network (restrict it further with a NetworkPolicy). On a VM or a laptop the same address
# would publish pids, memory and script paths to every network the host is on, hence the default.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/nodesup.js", "start", "--metrics", "0.0.0.0:9209"]
CMD ["examples/http-server/server.js"]
