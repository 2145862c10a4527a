# Source this file (`source local/env.sh`, from anywhere, in bash or zsh) while `make run` runs, to reach that stack
# from another terminal: it activates the project's virtual environment (which has the AWS CLI) and sets
#   API                        the HTTP API's address, as every example in the docs writes it: curl "$API/datasets"
#   AWS_ENDPOINT_URL           the local S3, SQS and Secrets Manager: `aws s3 cp` needs no --endpoint-url
#   AWS_ENDPOINT_URL_DYNAMODB  DynamoDB Local (or the capacity emulator in front of it)
#   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION   the fake credentials the local stack accepts
# read from the state file the running stack keeps (var/stack.json, or $DATA_DIR/stack.json: local/state.py). With no
# stack running it says so, sets none of them, and returns 1. Source it again after restarting make run on other ports.
_fencepost_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
. "$_fencepost_root/.venv/bin/activate"
if _fencepost_exports="$(python -m local.state --shell)"; then
  eval "$_fencepost_exports"
  unset _fencepost_root _fencepost_exports
else
  unset _fencepost_root _fencepost_exports
  false
fi
