"""The one place each function is wired, from an environment: its settings, telemetry, clients, parts and handler.

``lookup_wiring.lookup_function``, ``loader_wiring.loader_function`` and ``fetch_wiring.fetch_function`` are each
called once per cold start by their handler module (``fencepost.handlers``), and with an environment of their own by
the admin module, the local stack and the tests. Each is imported from its own module, never from here: a function's
cold start imports its own wiring and nothing of the others'."""
