"""What the interface states, as data: the schema registry, which schema each endpoint
follows, the requirements catalogue, the OpenAPI document, and the failure vocabulary."""
