"""An answer whose status line and headers are larger than the kit reads.

The HTTP parser under the client (h11) holds at most 16 KiB of an answer's head while it
waits for the blank line that ends it; past that it gives up with "Receive buffer too long"
(the 431 of a server). Such an answer did arrive: the target answered, with headers too
large to read, which is what the failure says, never "no answer" (and it counts toward no
"the target stopped answering" streak).
"""

from __future__ import annotations

import httpx

__all__ = ["HEAD_LIMIT_BYTES", "describe_head_too_large", "head_too_large"]

HEAD_LIMIT_BYTES = 16 * 1024
_PARSER_SAYS = "Receive buffer too long"


def head_too_large(exc: BaseException) -> bool:
    """Whether ``exc`` is the parser giving up on an answer's oversized status line and
    headers."""
    return isinstance(exc, httpx.RemoteProtocolError) and _PARSER_SAYS in str(exc)


def describe_head_too_large() -> str:
    """What arrived, for the failure and the evidence."""
    return (
        f"an answer whose status line and headers go past {HEAD_LIMIT_BYTES} bytes without "
        "ending (the kit reads no larger head; the body was not read)"
    )
