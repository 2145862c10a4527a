"""The write path, one message at a time, one module per step.

1. ``changes``: a change in a folder (an S3 notification) counts a *request* on the dataset record and schedules
   a build message after a settle delay; only the latest request builds (a burst makes one build).
2. ``building`` and ``reading``: a build takes its number from the record's counter, lists the folder, and skips
   if the objects and ETags are those of the live version. Otherwise it reads every object and checks every row.
3. ``publishing``: flattens the overlaps, writes the version's directory, and sends its pieces, shuffled across
   partitions, as chunk messages on the data queue (a build of one chunk is written at once instead).
4. ``writing``: chunks are written in parallel (BatchWriteItem, retried with backoff until the invocation's
   deadline, then handed back). The build record counts written chunks once each; the last one finalizes.
5. ``going_live``: one conditional write makes the version live only if it is newer than the live one.
6. ``failing`` and ``reports``: a load that cannot finish fails with a report; the live version stays.
7. ``cleanup``: old versions are deleted once no warm lookup can read them; the sweep fails stalled loads.

``messages`` defines every message, ``dispatch`` routes each to its step, ``service`` wires the steps, and
``ports`` holds the protocols the steps use. Delivery is at least once: every step is safe to repeat.
"""
