"""Enrichment: whole files of addresses joined with datasets' versions at once, each row answered exactly as
``GET /lookup`` answers its address (``engine``), as of a fixed instant or of each row's own time (``resolving``).
"""
