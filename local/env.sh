# Source this file (`source local/env.sh`, from anywhere) to use the standard AWS CLI against the local stack:
# it activates the project's virtual environment (which has awscli) and sets fake local credentials.
_fencepost_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
. "$_fencepost_root/.venv/bin/activate"
unset _fencepost_root
export AWS_ACCESS_KEY_ID=local
export AWS_SECRET_ACCESS_KEY=local
export AWS_DEFAULT_REGION=us-east-1
