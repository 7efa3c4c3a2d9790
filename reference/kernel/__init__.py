"""What every area of the sandbox stands on: database, errors, routing, validation, clock,
seams, settings, Basic auth and platforms, currencies and countries, and the services a
handler may use. Nothing here imports an area."""
