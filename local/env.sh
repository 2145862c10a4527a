# Source this file (`source local/env.sh`) to use the standard AWS CLI against the local stack:
# it activates the project's virtual environment (which has awscli) and sets fake local credentials.
. "$(git rev-parse --show-toplevel 2>/dev/null || pwd)/.venv/bin/activate"
export AWS_ACCESS_KEY_ID=local
export AWS_SECRET_ACCESS_KEY=local
export AWS_DEFAULT_REGION=us-east-1
