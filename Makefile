# Partner API: the two commands a new user needs are `make up` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

DATA    := .data
CLI     := node services/cli/dist/main.js
WITH_ENV = set -a; . $(DATA)/infra.env; set +a;

.PHONY: help install build lint typecheck up down infra migrate seed services test test-unit test-integration test-kafka-cluster test-containers test-e2e browser pdf-tools pass-certs test-contract test-redis-cluster test-e2e-redis-cluster chart-check image k8s-tools test-k8s test-k8s-upgrade bench-gateway bench-catalog bench-onsale bench-inventory bench-shards bench-webhooks bench-webhook-claims bench-retention bench-overload bench-waiting-room clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

# Install only when the lockfile changed since the last install. `npm install`
# rather than `npm ci`: the lockfile is written without registry URLs, and
# npm ci then rejects it for other platforms' optional packages; the
# versions are pinned by the lockfile either way.
node_modules/.install-stamp: package-lock.json
	npm install --no-audit --no-fund
	@touch $@

install: node_modules/.install-stamp ## install dependencies

build: install ## generate gRPC code and compile every package
	npm run build

lint: install ## buf lint and ESLint
	npm run lint

typecheck: build ## strict TypeScript over every package and every test
	npm run typecheck

infra: ## start PostgreSQL, Redis and Kafka (or use DATABASE_URL, REDIS_URL, KAFKA_BROKERS)
	deploy/local/infra.sh up

migrate: build infra ## migrate every service's schema
	$(WITH_ENV) $(CLI) migrate

seed: migrate ## demo organisations, keys and catalog; keys in .data/demo.env
	$(WITH_ENV) $(CLI) demo seed --out $(DATA)/demo.env --base-url http://127.0.0.1:4000

pass-certs: ## a local test pair for signing Apple Wallet passes (.data/passkit; iPhones refuse its passes)
	@deploy/local/pass-certs.sh >/dev/null

services: seed pass-certs ## (re)start the services and the dashboard
	deploy/local/services.sh start

up: services ## everything: install, build, infrastructure, migrate, seed, start
	@. $(DATA)/demo.env; \
	echo; echo "Partner API is up at $$BASE_URL"; \
	echo "  live key: $$DEMO_LIVE_KEY"; \
	echo "  test key: $$DEMO_TEST_KEY"; \
	echo "  dashboard: $$DASHBOARD_URL (sign in as $$DEMO_DASHBOARD_EMAIL, password $$DEMO_DASHBOARD_PASSWORD)"; \
	if [ -n "$$MAIL_URL" ]; then echo "  mail:     $$MAIL_URL (every email the stack sends, in MailDev)"; fi; \
	echo "  logs:     $(DATA)/logs/"; \
	echo "  try:      curl -H \"Authorization: Bearer $$DEMO_LIVE_KEY\" $$BASE_URL/"

down: ## stop the services and the local infrastructure this project started
	-deploy/local/services.sh stop
	deploy/local/infra.sh down

# Each suite leaves its Jest JSON report in .data/test-results for the summary line.
JEST = npx jest --json --outputFile=$(DATA)/test-results/$(1).json --selectProjects $(1)

test-unit: install ## unit tests (no servers)
	@mkdir -p $(DATA)/test-results
	$(call JEST,unit)

test-integration: migrate ## integration tests against real PostgreSQL, Redis and Kafka
	@mkdir -p $(DATA)/test-results
	$(call JEST,integration) --runInBand

# The outbox and holds suites again, against PostgreSQL, Redis and Kafka that
# testcontainers starts on podman (images built once per machine; see deploy/containers).
CONTAINER_SUITES := services/shared/test/outbox.test.ts services/inventory/test/holds.test.ts

test-containers: build ## the outbox and holds suites against servers from testcontainers (podman, local images)
	@mkdir -p $(DATA)/test-results
	TEST_INFRA=containers npx jest --json --outputFile=$(DATA)/test-results/containers.json --selectProjects integration --runInBand $(CONTAINER_SUITES)

# Its own 3-node Kafka cluster (started for the run, stopped after unless it
# was running already); PostgreSQL and Redis as for the integration tests.
test-kafka-cluster: migrate ## a broker of a 3-node Kafka cluster SIGKILLed while the outbox relay publishes and webhooks consume
	@mkdir -p $(DATA)/test-results
	deploy/local/with-kafka-cluster.sh $(call JEST,kafka-cluster) --runInBand

browser: ## Debian's Chromium for the browser tests
	@deploy/local/browser.sh >/dev/null

pdf-tools: ## Debian's poppler-utils (pdftoppm) and unzip for the ticket download tests
	@deploy/local/pdf-tools.sh >/dev/null

test-e2e: up browser pdf-tools ## drive the running system over HTTP (and the hosted checkout in Chromium)
	@mkdir -p $(DATA)/test-results
	$(call JEST,e2e) --runInBand
	node e2e/openapi-lint.js

VENV := $(DATA)/venv
$(VENV)/.stamp: e2e/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r e2e/requirements.txt
	@touch $@

test-contract: up $(VENV)/.stamp ## schemathesis over every operation (fixed seed), and a generated Python client calling each one
	e2e/schemathesis/run.sh
	e2e/python-client/run.sh

# A 3-master Redis Cluster of its own (ports 17001-17003, buses +10000), apart
# from the single Redis the other suites use; the Redis-touching integration
# suites run against it (the Redis-loss suite brings one shard back "stale"
# and checks only that shard's events close), the shard-kill suite
# SIGKILLs one shard in the middle of a burst of holds, and the optional-client
# suite SIGKILLs every node and starts them again.
REDIS_CLUSTER_URL := redis+cluster://127.0.0.1:17001,127.0.0.1:17002,127.0.0.1:17003
test-redis-cluster: migrate ## the Redis-touching integration suites against a 3-master Redis Cluster (stops the local stack)
	@mkdir -p $(DATA)/test-results
	@# The local stack's inventory shares this database but not this Redis: its sweeper would end these
	@# suites' lapsed holds and give their tickets back to the other Redis. It stays stopped (make up).
	deploy/local/services.sh stop
	REDIS_CLUSTER=3 deploy/local/infra.sh start redis
	@# The cluster is stopped again whatever the suites say: nothing of it outlives the run.
	status=0; $(WITH_ENV) REDIS_URL=$(REDIS_CLUSTER_URL) REDIS_CLUSTER_INFRA=$(CURDIR)/deploy/local/infra.sh \
	  npx jest --json --outputFile=$(DATA)/test-results/redis-cluster.json --runInBand \
	  services/inventory/test/redis-loss.test.ts services/inventory/test/hold-book.test.ts \
	  services/inventory/test/comp-stock.test.ts services/gateway/test/idempotency.test.ts services/gateway/test/key-admission.test.ts \
	  services/shared/test/address-limit-counts.test.ts \
	  services/inventory/test/shard-kill.redis-cluster.test.ts services/shared/test/redis-close.redis-cluster.test.ts \
	  services/shared/test/redis-optional.redis-cluster.test.ts --selectProjects integration redis-cluster || status=$$?; \
	REDIS_CLUSTER=3 deploy/local/infra.sh stop redis; exit $$status

# The whole e2e suite again, on a stack of its own (fresh database and
# topic) whose Redis is that 3-master cluster; the on-sale suite then kills
# the shard of its event instead of the one Redis. The usual stack is
# started again afterwards and the cluster stopped (with-redis-cluster-stack.sh).
test-e2e-redis-cluster: up browser pdf-tools ## the e2e suites against a stack on a 3-master Redis Cluster
	@mkdir -p $(DATA)/test-results
	deploy/local/with-redis-cluster-stack.sh \
	  npx jest --json --outputFile=$(DATA)/test-results/e2e-redis-cluster.json --selectProjects e2e --runInBand

chart-check: ## helm lint and template every values scenario
	deploy/helm/check.sh

image: ## the project image with podman, from a locally built Debian base (no registry); tagged by git revision
	deploy/docker/image.sh

k8s-tools: ## build helm, the Kubernetes control plane and node, and CoreDNS once per machine (needs the Go module proxy)
	deploy/helm/install-helm.sh >/dev/null
	deploy/k8s/build-kube.sh >/dev/null
	deploy/k8s/node.sh build
	deploy/k8s/crds.sh >/dev/null

test-k8s: build ## the chart on a real kube-apiserver for every values file, its pods running on a node, the image run as the chart runs it
	deploy/k8s/test.sh
	image=$$(deploy/docker/image.sh) && deploy/k8s/pods.sh "$$image" && deploy/docker/smoke.sh "$$image"

test-k8s-upgrade: build ## under partner traffic on the one-node cluster: an upgrade from the previous release, a rolling upgrade and a rollback, none failing a request (docs/deploy.md)
	deploy/k8s/upgrade.sh "$$(deploy/docker/image.sh)"

test: lint typecheck test-unit test-integration test-kafka-cluster test-containers test-e2e test-contract test-redis-cluster test-e2e-redis-cluster chart-check test-k8s ## the whole suite (what CI runs)
	@node .ci/test-summary.js $(DATA)/test-results

bench-gateway: up ## GET / through the gateway vs a bare node:http server (docs/benchmarks.md)
	node e2e/bench/gateway.js

bench-catalog: up ## GET /events through the stack vs the same query on PostgreSQL (docs/benchmarks.md)
	node e2e/bench/catalog.js

bench-onsale: up ## on-sale: checkout sessions, Lua vs row-lock holds, hold script vs redis-benchmark (docs/benchmarks.md)
	node e2e/bench/onsale.js

bench-inventory: up ## holds/s through one inventory process vs two behind one client target (docs/benchmarks.md)
	node e2e/bench/inventory-scaleout.js

bench-shards: up ## holds/s against one Redis vs a 3-master Redis Cluster, through inventory and the script alone (docs/benchmarks.md)
	node e2e/bench/inventory-shards.js

bench-webhooks: up ## webhook deliveries from Kafka through the webhooks service, and the least a durable pipeline does, vs signed POSTs sent directly (docs/benchmarks.md)
	node e2e/bench/webhooks.js

bench-webhook-claims: up ## one claim of the webhooks' delivery queue with retries waiting, against the claim before D364 (docs/benchmarks.md)
	node e2e/bench/webhook-claims.js

bench-retention: up ## one retention pass (outbox, webhook events and attempts) on large tables, with and without their BRIN indexes (docs/benchmarks.md)
	node e2e/bench/retention.js

bench-overload: up ## checkouts offered open-loop at 0.5-10x the closed-loop capacity: served fast, turned away, timeouts, ghost holds (docs/benchmarks.md)
	node --test e2e/bench/open-loop.test.js
	node e2e/bench/overload.js

bench-waiting-room: up ## 20,000 visitors open-loop in 10 s at a queued sale page, 5,000 before it opens: page p99, admitted/s against the set rate, order, forged passes (docs/benchmarks.md)
	node e2e/bench/waiting-room.js

clean: down ## stop everything and remove build output and local data
	rm -rf $(DATA) services/*/dist services/shared/src/gen
