"""The client check (``serve --check-clients DIR``): the sandbox judges every request a
platform's client sends it against what the interface asks of a client, and records each
finding as it arrives (``journal.py``); the kit turns the journal into reports.

A floor of its own above the areas and the faults: it reads requests at the edge
(``middleware.py``) and watches the values the areas already compute where they decrypt
and verify (``observers.py``, attached at their seams by the composition root).
"""
