"""Keyed datasets: tables of keys rather than ranges (an AS number and its name), stored whole, joined live into the
answers of range datasets (``core.keyed.keyed_table``, ``core.keyed.join_spec``)."""
