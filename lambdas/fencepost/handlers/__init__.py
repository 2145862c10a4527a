"""Lambda entry points: each wires settings, clients and Powertools once per container, then stays thin."""
