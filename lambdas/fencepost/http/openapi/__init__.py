"""The OpenAPI document of the HTTP API (``document``) and its request and response models (``schemas``)."""
