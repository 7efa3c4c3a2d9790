"""``GET /config`` and ``PATCH /config`` (§4 Platform configuration)."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.configuration.store import apply_changes, load_config, render, seeded_values
from reference.configuration.validation import validate_config_patch
from reference.server.platforms import all_platforms
from reference.server.routing import ApiRequest, Operation, api_route


def get_config(request: ApiRequest) -> Response:
    """The caller's PlatformConfig."""
    services = request.services
    config = load_config(services.db, request.platform.id)
    return JSONResponse(render(config, services.settings))


def patch_config(request: ApiRequest) -> Response:
    """Validate every field, apply the changes to the caller's config, return it."""
    services = request.services
    settings = services.settings
    changes = validate_config_patch(request.body, settings)
    if settings.has_fault("config-patch-resets-unsent"):
        changes = {**seeded_values(), **changes}
    if settings.has_fault("config-fees-dropped"):
        changes.pop("feeConfigs", None)
    if not settings.has_fault("config-patch-ignored"):
        targets = [request.platform.id]
        if settings.has_fault("config-shared-across-platforms"):
            targets = [platform.id for platform in all_platforms(services.db)]
        apply_changes(services.db, targets, changes)
    config = load_config(services.db, request.platform.id)
    return JSONResponse(render(config, settings))


ROUTES = [
    api_route("/config", Operation("GET", get_config), Operation("PATCH", patch_config, body=True)),
]
