"""Sinks: where a dataset's live version is pushed beyond the service (AWS WAF IP sets, an EC2 managed prefix list).

``sink_settings`` reads a folder's ``"sinks"`` setting; ``plan`` turns a version's pieces into the fewest CIDR
networks, IPv4 and IPv6 apart, splits them into sets and works out the difference; ``state`` is what the dataset's
record keeps of each sink's last push. The adapters that talk to AWS are ``fencepost.aws.waf_sets`` and
``fencepost.aws.prefix_lists``; the loader's step is ``fencepost.loading.pushing``.
"""
