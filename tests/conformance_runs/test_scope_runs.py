"""A narrowed run says so in every headline, and maps what it did to the target."""

from __future__ import annotations

from .runner import conformance_run


def test_a_run_of_two_parts_names_them_first_and_maps_the_interface(tmp_path):
    done = conformance_run(tmp_path, "--parts=auth,webhooks")
    assert done.code == 0, done.output
    head = (done.report_dir / "summary.md").read_text(encoding="utf-8").splitlines()[:3]
    assert any("auth" in line and "webhooks" in line for line in head), head
    assert "requirements decided)" in head[0]
    scope = done.summary["scope"]
    assert scope["parts"] == ["auth", "webhooks"] and scope["narrowed"]
    assert scope["requirements"]["decided"] < scope["requirements"]["total"]
    assert "conformance: PASSED for auth, webhooks (" in done.output  # the console's verdict
    coverage = done.summary["interface_coverage"]
    assert len(coverage["operations"]) >= 40
    assert sum(op["requests"] for op in coverage["operations"]) > 0
    assert any(event["received"] for event in coverage["events"])
