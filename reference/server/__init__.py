"""The sandbox's server: application, routing, settings, database, auth, errors, validation,
seams and the ``serve`` command."""
