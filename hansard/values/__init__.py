"""The value types that flow from the parsers into the store (``models``) and the one time
format every stage shares, with its since/until bounds (``timebounds``)."""
