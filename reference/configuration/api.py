"""``GET /config`` and ``PATCH /config`` (§4 Platform configuration)."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.configuration.store import apply_changes, load_config, render
from reference.configuration.validation import validate_config_patch
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam

CHANGES_APPLIED = seam(
    "config.changes_applied",
    "the validated changes (API field name -> value) PATCH /config writes: all of them",
)
PATCH_TARGETS = seam(
    "config.patch_targets",
    "the ids of the platforms whose configuration a PATCH /config changes: the caller's alone"
    " (context: services)",
)


def get_config(request: ApiRequest) -> Response:
    """The caller's PlatformConfig."""
    services = request.services
    config = load_config(services.db, request.platform.id)
    return JSONResponse(render(config, services.settings))


def patch_config(request: ApiRequest) -> Response:
    """Validate every field, apply the changes to the caller's config, return it."""
    services = request.services
    settings = services.settings
    changes = settings.seams.apply(CHANGES_APPLIED, validate_config_patch(request.body, settings))
    targets = settings.seams.apply(PATCH_TARGETS, [request.platform.id], services=services)
    apply_changes(services.db, targets, changes)
    config = load_config(services.db, request.platform.id)
    return JSONResponse(render(config, settings))


ROUTES = [
    api_route("/config", Operation("GET", get_config), Operation("PATCH", patch_config, body=True)),
]
