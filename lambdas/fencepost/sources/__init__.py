"""Feeds that refresh themselves: a folder's ``_source.json`` checked on a schedule (``check``, in ``rounds``, each
check's requests made in ``requests``, what it gives back in ``outcomes``), with what the check needs of the bucket,
the table, the secret store and the downloads declared in ``needs``."""
