"""``make bench``: speed, memory and cost, measured side by side on this machine against DynamoDB Local."""
