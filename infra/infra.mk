# AWS CDK targets, included by the Makefile (`include infra/infra.mk`), which defines BIN, PY and `install`.
# Context passes through CDK_ARGS, e.g. `make deploy CDK_ARGS="-c capacity=prewarm"` (see docs/deploy.md).

CDK := npx --no-install cdk
CDK_ARGS ?=
CDK_FLAGS := --no-notices
TEMPLATE := cdk.out/Fencepost.template.json

export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export CDK_DISABLE_CLI_TELEMETRY := true

# Synthesizing needs no AWS account: the stack is environment-agnostic and does no lookups. A region is set only
# so the CLI does not go looking for one (instance metadata) on a machine without AWS configuration.
OFFLINE_ENV := AWS_REGION=$${AWS_REGION:-us-east-1} CDK_DEFAULT_REGION=$${CDK_DEFAULT_REGION:-us-east-1} \
	AWS_EC2_METADATA_DISABLED=true

.PHONY: build-lambda synth lint-template bootstrap diff deploy destroy

build-lambda: install
	$(PY) -m infra.packaging

synth: install
	$(OFFLINE_ENV) $(CDK) synth $(CDK_FLAGS) --quiet $(CDK_ARGS)
	@echo "Template: $(TEMPLATE)"

# The template make synth wrote (with CDK_ARGS), and the app in the contexts of infra/scan.py's CONTEXTS
lint-template: synth $(SCAN_STAMP)
	$(PY) -m infra.scan $(TEMPLATE)

# Once per account and region, before the first deploy.
bootstrap: install
	$(CDK) bootstrap $(CDK_FLAGS) $(CDK_ARGS)

# What a deploy with these options would change in the deployed stack (reads it: needs credentials). Before the
# switch back to on-demand after a prewarm, it must show the table's capacity and nothing else.
diff: install
	$(CDK) diff $(CDK_FLAGS) $(CDK_ARGS)

deploy: install
	$(CDK) deploy $(CDK_FLAGS) $(CDK_ARGS)

destroy: install
	$(CDK) destroy $(CDK_FLAGS) $(CDK_ARGS)
