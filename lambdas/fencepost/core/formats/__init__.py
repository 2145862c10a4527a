"""Input formats behind one interface (``base``): column files (``columns``), line formats (``linefiles``: RIR
statistics in ``registry``, network lists in ``netsets``), MaxMind DB files (``mmdb``, read whole through
``archives``), the bounded line reader and cell parsing they share (``lines``, ``cells``), and ``choice``, the one
place that chooses which of them reads an object."""
