"""Command-line options of the plugin: names, environment variables and the option group.

Every target setting can come from a flag, a ``CONFORMANCE_*`` environment variable or the
TOML profile file; the precedence is flag > environment > file (see ``profile.py``).
Option names are constants so the CLI and the self-tests use the same spelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line reads the options before it imports pytest
    import pytest

GROUP = "conformance"
GROUP_DESCRIPTION = "conformance target (flag > CONFORMANCE_* environment variable > profile file)"


@dataclass(frozen=True, slots=True)
class Setting:
    """One target setting: its flag, its environment variable and its key in the profile file."""

    flag: str
    env: str
    key: str
    help: str
    kind: str = "str"  # str | bool | float | count | list | choice | path
    choices: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        return "conformance_" + self.key


PROFILE_FLAG = "--conformance-profile"
PROFILE_ENV = "CONFORMANCE_PROFILE"
PARTS_FLAG = "--conformance-parts"
PARTS_ENV = "CONFORMANCE_PARTS"

# `conformance run` spells these two shorter than the plugin does (pytest's option names are
# shared with every plugin: pytest-profiling has --profile). A usage error names the option
# the user typed: the command line calls `use_run_spelling` before pytest starts.
RUN_SPELLING = {PROFILE_FLAG: "--profile", PARTS_FLAG: "--parts"}
_TYPED: dict[str, str] = {}


def use_run_spelling() -> None:
    """Name the run's options as `conformance run` spells them, in this process's messages."""
    _TYPED.update(RUN_SPELLING)


def typed(flag: str) -> str:
    """``flag`` as the user typed it: ``--parts`` under `conformance run`, else the plugin's."""
    return _TYPED.get(flag, flag)


BASE_URL = Setting(
    "--target-url",
    "CONFORMANCE_BASE_URL",
    "base_url",
    "base URL of the target, with or without the /2025-10-13 segment; "
    "when no target is given the embedded reference sandbox is started",
)
CLIENT_ID = Setting("--client-id", "CONFORMANCE_CLIENT_ID", "client_id", "API token id")
CLIENT_SECRET = Setting(
    "--client-secret", "CONFORMANCE_CLIENT_SECRET", "client_secret", "API client secret"
)
SECOND_CLIENT_ID = Setting(
    "--second-client-id",
    "CONFORMANCE_SECOND_CLIENT_ID",
    "second_client_id",
    "token id of a second platform (isolation tests)",
)
SECOND_CLIENT_SECRET = Setting(
    "--second-client-secret",
    "CONFORMANCE_SECOND_CLIENT_SECRET",
    "second_client_secret",
    "secret of a second platform",
)
PRODUCTION_CLIENT_ID = Setting(
    "--production-client-id",
    "CONFORMANCE_PRODUCTION_CLIENT_ID",
    "production_client_id",
    "a production token id (environment-binding tests)",
)
PRODUCTION_CLIENT_SECRET = Setting(
    "--production-client-secret",
    "CONFORMANCE_PRODUCTION_CLIENT_SECRET",
    "production_client_secret",
    "the production secret",
)
WEBHOOK_KEY = Setting(
    "--webhook-public-key",
    "CONFORMANCE_WEBHOOK_PUBLIC_KEY",
    "webhook_public_key",
    "the service's webhook public key: a PEM file path or the PEM text",
    kind="path",
)
ENVIRONMENT = Setting(
    "--target-environment",
    "CONFORMANCE_ENVIRONMENT",
    "environment",
    "environment the credentials belong to (default: sandbox)",
    kind="choice",
    choices=("sandbox", "production"),
)
REGULATED = Setting(
    "--regulated",
    "CONFORMANCE_REGULATED",
    "regulated",
    "the platform is regulated (true/false, default false)",
    kind="bool",
)
SKIP_PAPERWORK = Setting(
    "--skip-verification-paperwork",
    "CONFORMANCE_SKIP_VERIFICATION_PAPERWORK",
    "skip_verification_paperwork",
    "the sandbox setting Skip verification paperwork is on (true/false, default false)",
    kind="bool",
)
FEATURES = Setting(
    "--features",
    "CONFORMANCE_FEATURES",
    "features",
    "comma-separated features enabled for the platform: cards, rule-based-accounts, "
    "rule-based-accounts-off-for-second-platform, sca, agents",
    kind="list",
)
PAGINATION = Setting(
    "--pagination",
    "CONFORMANCE_PAGINATION",
    "pagination",
    "how the target's lists page (§4: not shown), as cursor_parameter=NAME,next_member=NAME,"
    "items_member=NAME (the profile's [pagination] table); without it a record not on a "
    "list's first page skips its test",
    kind="list",
)
ADAPTER = Setting(
    "--adapter",
    "CONFORMANCE_ADAPTER",
    "adapter",
    "importable module implementing the conformance adapter hooks, or the path of its .py file",
    kind="path",
)
REPORT_DIR = Setting(
    "--report-dir",
    "CONFORMANCE_REPORT_DIR",
    "report_dir",
    "folder for summary.json and summary.md (default: reports)",
)
TIMEOUT = Setting(
    "--request-timeout",
    "CONFORMANCE_REQUEST_TIMEOUT",
    "request_timeout",
    "per-request timeout in seconds (default: 10)",
    kind="float",
)
ALLOW_PRODUCTION_WRITES = Setting(
    "--allow-production-writes",
    "CONFORMANCE_ALLOW_PRODUCTION_WRITES",
    "allow_production_writes",
    "in production, also run tests that move money or change configuration (true/false)",
    kind="bool",
)
SINK_HOST = Setting(
    "--sink-host",
    "CONFORMANCE_SINK_HOST",
    "sink_host",
    "address the webhook sink listens on (default: 127.0.0.1)",
)
SINK_HTTPS = Setting(
    "--sink-https",
    "CONFORMANCE_SINK_HTTPS",
    "sink_https",
    "serve the webhook sink over HTTPS with a throwaway CA (true/false)",
    kind="bool",
)
SINK_PUBLIC_URL = Setting(
    "--sink-public-url",
    "CONFORMANCE_SINK_PUBLIC_URL",
    "sink_public_url",
    "public URL (e.g. a tunnel) that forwards to the webhook sink",
)
WEBHOOK_TIMEOUT = Setting(
    "--webhook-timeout",
    "CONFORMANCE_WEBHOOK_TIMEOUT",
    "webhook_timeout",
    "how long to wait for a webhook delivery, in seconds (default: 20)",
    kind="float",
)
EMBEDDED_ARGS = Setting(
    "--embedded-args",
    "CONFORMANCE_EMBEDDED_ARGS",
    "embedded_args",
    "extra flags for the embedded reference sandbox (e.g. '--regulated --fault NAME')",
)
EMBEDDED_SANDBOXES = Setting(
    "--embedded-sandboxes",
    "CONFORMANCE_EMBEDDED_SANDBOXES",
    "embedded_sandboxes",
    "how many embedded reference sandboxes a run with -n workers starts; worker gwN uses "
    "sandbox N mod this (default: one per worker, up to the number of CPUs; 1: the workers "
    "share one sandbox, as they share any other target)",
    kind="count",
)
WALLET_ENCLAVE_KEY = Setting(
    "--wallet-enclave-public-key",
    "CONFORMANCE_WALLET_ENCLAVE_PUBLIC_KEY",
    "wallet_enclave_public_key",
    "hex P-256 public key that signs the target's embedded-wallet bundles",
)
WALLET_RP_ID = Setting(
    "--wallet-rp-id",
    "CONFORMANCE_WALLET_RP_ID",
    "wallet_rp_id",
    "WebAuthn relying-party id for passkey credentials",
)
WALLET_ORIGIN = Setting(
    "--wallet-origin",
    "CONFORMANCE_WALLET_ORIGIN",
    "wallet_origin",
    "WebAuthn origin for passkey credentials (e.g. https://wallet.example.com)",
)
WALLET_OIDC_ISSUERS = Setting(
    "--wallet-oidc-issuers",
    "CONFORMANCE_WALLET_OIDC_ISSUERS",
    "wallet_oidc_issuers",
    "comma-separated OIDC issuers the target supports for OAUTH credentials",
    kind="list",
)

RATE_LIMIT = Setting(
    "--rate-limit",
    "CONFORMANCE_RATE_LIMIT",
    "rate_limit",
    "at most this many requests a second to the target (all workers together); then a "
    "429/503 with Retry-After is waited out and sent again within the request deadline",
    kind="float",
)

WAIVERS = Setting(
    "--waivers",
    "CONFORMANCE_WAIVERS",
    "waivers",
    "TOML file of accepted failures, each with a reason and an expiry date; an expired "
    "waiver fails the run",
    kind="path",
)
BASELINE = Setting(
    "--baseline",
    "CONFORMANCE_BASELINE",
    "baseline",
    "an earlier run's summary.json: the summaries and the console list regressions, new and "
    "fixed failures",
    kind="path",
)

SETTINGS: tuple[Setting, ...] = (
    BASE_URL,
    CLIENT_ID,
    CLIENT_SECRET,
    SECOND_CLIENT_ID,
    SECOND_CLIENT_SECRET,
    PRODUCTION_CLIENT_ID,
    PRODUCTION_CLIENT_SECRET,
    WEBHOOK_KEY,
    ENVIRONMENT,
    REGULATED,
    SKIP_PAPERWORK,
    FEATURES,
    PAGINATION,
    ADAPTER,
    REPORT_DIR,
    TIMEOUT,
    ALLOW_PRODUCTION_WRITES,
    SINK_HOST,
    SINK_HTTPS,
    SINK_PUBLIC_URL,
    WEBHOOK_TIMEOUT,
    EMBEDDED_ARGS,
    EMBEDDED_SANDBOXES,
    WALLET_ENCLAVE_KEY,
    WALLET_RP_ID,
    WALLET_ORIGIN,
    WALLET_OIDC_ISSUERS,
    RATE_LIMIT,
    WAIVERS,
    BASELINE,
)
# Settings whose value is a file's path: relative in a profile file, from the file's folder.
PATH_SETTINGS = frozenset(s for s in SETTINGS if s.kind == "path")

WAIVERS_FLAG, WAIVERS_ENV = WAIVERS.flag, WAIVERS.env
BASELINE_FLAG, BASELINE_ENV = BASELINE.flag, BASELINE.env
# A run option that is not a target setting (no profile key).
RECORD_EXCHANGES_FLAG = "--record-exchanges"

# Profile-file tables that are not single flags.
FIELD_NAMES_TABLE = "field_names"
PAGINATION_TABLE = "pagination"


METAVARS = {"bool": "true|false", "float": "SECONDS", "count": "N", "list": "A,B"}


def add_options(parser: pytest.Parser) -> None:
    """Register the conformance option group on pytest's parser."""
    group = parser.getgroup(GROUP, GROUP_DESCRIPTION)
    group.addoption(
        PROFILE_FLAG,
        dest="conformance_profile",
        default=None,
        metavar="FILE",
        help=f"TOML profile file describing the target (env {PROFILE_ENV})",
    )
    group.addoption(
        PARTS_FLAG,
        dest="conformance_parts",
        default=None,
        metavar="PARTS",
        help="comma-separated spec parts to run: resources, transitions, endpoints, auth, "
        f"webhooks, errors, limits, versioning (env {PARTS_ENV})",
    )
    group.addoption(
        RECORD_EXCHANGES_FLAG,
        dest="conformance_record_exchanges",
        action="store_true",
        default=False,
        help="write every exchange, redacted, to REPORT_DIR/evidence/ (conformance certify "
        "turns it on)",
    )
    for setting in SETTINGS:
        metavar = METAVARS.get(setting.kind)
        group.addoption(
            setting.flag,
            dest=setting.dest,
            default=None,
            metavar=metavar or setting.key.upper(),
            help=f"{setting.help} (env {setting.env}; profile key '{setting.key}')",
        )
