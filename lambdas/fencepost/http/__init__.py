"""The lookup function's HTTP front: the app (routing, refusals, the ``GET /lookup`` fast path), the routes
table, one module per group of routes (``lookup_routes``, ``range_routes``, ``build_diff_routes``,
``version_diff_routes``, ``dataset_routes``), what every answer shares (``fields``, ``conditional``, ``cors``,
``responses``, ``budget``) and ``openapi``."""
