"""The read side without HTTP: which version is live, the one Query per address, the answer's shape, several
datasets combined, and the caches that spare Queries."""
