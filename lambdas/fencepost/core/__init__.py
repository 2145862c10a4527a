"""The pure core: addresses, key layout, range flattening, file formats. No AWS in here."""
