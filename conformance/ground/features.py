"""The platform features a target profile may declare (``--features``).

Each one gates suite tests through ``@pytest.mark.feature(name)``; a name outside this set
gates nothing, so a misspelling would silently skip tests: it is a usage error instead.
"""

from __future__ import annotations

__all__ = ["KNOWN_FEATURES", "unknown_features"]

KNOWN_FEATURES: dict[str, str] = {
    "cards": "card issuing and card transactions (§2 Card, CardTransaction)",
    "embedded-wallet": (
        "the embedded wallet (§1 item 8, §5): wallet credentials, sessions, signatures"
    ),
    "rule-based-accounts": "rule-based internal accounts (sweep rules)",
    "rule-based-accounts-off-for-second-platform": (
        "the second platform lacks rule-based accounts (isolation checks)"
    ),
    # declared by profiles; no test is gated on them (their tests run when the target
    # challenges, or when the adapter hooks they need are implemented)
    "sca": "SCA customers (strong customer authentication)",
    "agents": "agents acting for customers",
}


def unknown_features(names: tuple[str, ...]) -> list[str]:
    """The declared names no test knows, in the order given."""
    return [name for name in names if name not in KNOWN_FEATURES]
