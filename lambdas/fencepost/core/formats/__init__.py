"""Input formats: column files (``columns``), line formats (``linefiles``: RIR statistics in ``registry``,
network lists in ``netsets``), MaxMind DB files (``mmdb``, read whole through ``archives``), and the bounded line
reader and cell parsing they share (``lines``, ``cells``)."""
