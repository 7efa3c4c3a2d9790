"""Start-up settings of the reference sandbox, fixed for the life of the process."""

from __future__ import annotations

from dataclasses import dataclass, field

from reference import INTERFACE_VERSION
from reference.kernel.seams import Seams, seam

VERSION_SEGMENT = seam("server.version_segment", "the date segment the routes are served under")

IN_MEMORY = ":memory:"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything the command line decides; handlers read it, never change it."""

    host: str = "127.0.0.1"
    port: int = 0
    db_path: str = IN_MEMORY
    regulated: bool = False
    skip_verification_paperwork: bool = False
    quote_lifetime_s: float = 60.0
    response_delay_s: float = 0.0  # added before every API answer (benchmarks)
    # Webhook delivery: every retry delay is multiplied by the scale (tests compress the
    # hours-long schedule); one attempt, connect to the whole answer, ends at the timeout.
    webhook_retry_scale: float = 1.0
    webhook_timeout_s: float = 10.0
    allow_private_webhooks: bool = False  # webhookEndpoint on 10/8, 192.168/16, fc00::/7...
    faults: frozenset[str] = field(default_factory=frozenset)
    # serve --variant: a fault-free reference that chose otherwise where the interface is
    # open (SANDBOX.md, "The variant reference"); never a fault mode
    variant: bool = False
    seams: Seams = field(default_factory=Seams)
    client_id: str | None = None
    client_secret: str | None = None

    @property
    def api_version(self) -> str:
        """The date segment the routes are served under."""
        return self.seams.apply(VERSION_SEGMENT, INTERFACE_VERSION)

    @property
    def base_path(self) -> str:
        """The versioned base path, e.g. ``/2025-10-13``."""
        return f"/{self.api_version}"
