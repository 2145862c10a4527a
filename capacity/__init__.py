"""DynamoDB's partitions, modelled: what a table accepts each second, and why it refuses the rest.

No AWS here. ``facts`` holds every number with its source; ``keys`` places items and prices requests; ``modes``
reads a capacity mode (``CAPACITY``); ``partitions`` and ``table`` are the model; ``simulation`` drives it in
virtual time with the loaders of ``loaders``. The emulator (``local.capacity``) drives the same model in real
time, in front of DynamoDB Local.
"""
