"""Input formats behind one interface (``base``): column files (``columns``), line formats (``linefiles``: RIR
statistics in ``rir_stats``, network lists in ``netsets``, Spamhaus DROP JSON lines in ``drop_json``, RFC 8805
geofeeds in ``geofeed``, CAIDA prefix-to-AS in ``pfx2as``), JSON documents (``json_documents``: ``aws_ranges``,
``google_ranges``, ``oracle_ranges``, ``fastly_ranges``, sharing ``json_layouts``), MaxMind DB files (``mmdb``,
read whole through ``archives``), the bounded line reader and cell parsing they share (``lines``, ``cells``), and
``choice``, the one place that chooses which of them reads an object."""
