"""The target profile: flag > environment > file, and clear usage errors."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.ground import options as opt
from conformance.ground.profile import FIELD_NAME_DEFAULTS, normalise_base_url
from conformance.ground.profile_loading import load_profile

KEY_PEM = (
    ec.generate_private_key(ec.SECP256R1())
    .public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)


def profile_from(pytester, *args, environ=None, file_text=None):
    if file_text is not None:
        path = pytester.makefile(".toml", profile=file_text)
        args = (*args, f"{opt.PROFILE_FLAG}={path}")
    config = pytester.parseconfig(*args)
    return load_profile(config, environ or {})


def test_no_target_means_the_embedded_sandbox(pytester):
    profile = profile_from(pytester)
    assert profile.embedded and profile.base_url is None
    assert profile.environment == "sandbox" and profile.request_timeout == 10.0


def test_flag_beats_environment_beats_file(pytester):
    file_text = 'base_url = "http://file.example"\nclient_id = "file-id"\nclient_secret = "f"\n'
    environ = {"CONFORMANCE_BASE_URL": "http://env.example", "CONFORMANCE_REQUEST_TIMEOUT": "3"}
    profile = profile_from(
        pytester, "--target-url=http://flag.example", environ=environ, file_text=file_text
    )
    assert profile.base_url == "http://flag.example/2025-10-13"
    assert profile.request_timeout == 3.0  # from the environment
    assert profile.client_id == "file-id"  # from the file
    profile = profile_from(pytester, environ=environ, file_text=file_text)
    assert profile.base_url == "http://env.example/2025-10-13"


def test_profile_file_holds_every_setting(pytester, tmp_path):
    key_file = tmp_path / "key.pem"
    key_file.write_text(KEY_PEM)
    file_text = f"""
[target]
base_url = "https://api.example.com/2025-10-13/"
client_id = "id"
client_secret = "hunter2-primary"
second_client_id = "id2"
second_client_secret = "secret2"
production_client_id = "pid"
production_client_secret = "psecret"
webhook_public_key = "{key_file}"
environment = "production"
regulated = true
skip_verification_paperwork = "false"
features = ["rule-based-accounts", "sca"]
adapter = "json"
report_dir = "out"
request_timeout = 2.5
allow_production_writes = true

[field_names]
fee_config_currency = "currency"
"""
    profile = profile_from(pytester, file_text=file_text)
    assert profile.base_url == "https://api.example.com/2025-10-13"
    assert profile.second is not None and profile.production is not None
    assert profile.webhook_public_key == KEY_PEM
    assert profile.environment == "production" and profile.regulated is True
    assert profile.features == ("rule-based-accounts", "sca")
    assert profile.fee_config_names["currency"] == "currency"
    assert profile.fee_config_names["fixed"] == FIELD_NAME_DEFAULTS["fee_config_fixed"]
    assert profile.writes_allowed
    assert "hunter2-primary" not in repr(profile.primary) + repr(profile)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://h:1", "http://h:1/2025-10-13"),
        ("http://h:1/", "http://h:1/2025-10-13"),
        ("http://h:1/api/2025-10-13", "http://h:1/api/2025-10-13"),
        ("http://h:1/2024-01-01", "http://h:1/2024-01-01"),
    ],
)
def test_base_url_with_or_without_the_version_segment(url, expected):
    assert normalise_base_url(url) == expected


@pytest.mark.parametrize(
    ("args", "environ", "message"),
    [
        (["--target-url=http://x.example"], {}, "a target needs credentials"),
        (["--target-url=http://x.example", "--client-id=a"], {}, "given without --client-secret"),
        (["--client-id=a", "--client-secret=b"], {}, "credentials given but no target"),
        (["--target-url=ftp://x"], {}, "not an http(s) URL"),
        (["--target-environment=staging"], {}, "unknown value"),
        ([], {"CONFORMANCE_REGULATED": "maybe"}, "not a boolean"),
        ([], {"CONFORMANCE_REQUEST_TIMEOUT": "-1"}, "must be positive"),
        (["--target-environment=production"], {}, "embedded reference sandbox is a sandbox"),
        (["--webhook-public-key=/no/such/key.pem"], {}, "neither PEM text nor a readable file"),
        (["--embedded-sandboxes=0"], {}, "not a positive whole number"),
        ([], {"CONFORMANCE_EMBEDDED_SANDBOXES": "two"}, "not a positive whole number"),
        (
            [
                "--target-url=http://x",
                "--client-id=a",
                "--client-secret=b",
                "--embedded-sandboxes=2",
            ],
            {},
            "only applies to the embedded sandbox",
        ),
        (
            ["--target-url=http://x", "--client-id=a", "--client-secret=b", "--second-client-id=c"],
            {},
            "given without --second-client-secret",
        ),
    ],
)
def test_missing_or_contradictory_settings_are_usage_errors(pytester, args, environ, message):
    with pytest.raises(pytest.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        profile_from(pytester, *args, environ=environ)


def test_the_number_of_embedded_sandboxes_comes_from_a_flag_the_environment_or_the_file(
    pytester,
):
    assert profile_from(pytester).embedded_sandboxes is None  # the default: per worker
    assert profile_from(pytester, "--embedded-sandboxes=1").embedded_sandboxes == 1
    environ = {"CONFORMANCE_EMBEDDED_SANDBOXES": "3"}
    assert profile_from(pytester, environ=environ).embedded_sandboxes == 3
    assert profile_from(pytester, file_text="embedded_sandboxes = 2\n").embedded_sandboxes == 2


def test_unknown_profile_keys_are_usage_errors(pytester):
    with pytest.raises(pytest.UsageError, match="unknown key"):
        profile_from(pytester, file_text='base_ur = "http://typo.example"\n')
    with pytest.raises(pytest.UsageError, match="not valid TOML"):
        profile_from(pytester, file_text="base_url = \n")


def test_the_pagination_table_says_how_the_target_pages(pytester):
    """§4 shows no pagination: the optional [pagination] table (issue 34)."""
    assert profile_from(pytester).pagination == {}
    file_text = '[pagination]\ncursor_parameter = "pageToken"\nnext_member = "next"\n'
    profile = profile_from(pytester, file_text=file_text)
    assert profile.pagination == {"cursor_parameter": "pageToken", "next_member": "next"}
    assert type(profile).from_dict(profile.to_dict()).pagination == profile.pagination
    with pytest.raises(pytest.UsageError, match=r"unknown \[pagination\] key"):
        profile_from(pytester, file_text='[pagination]\ncursor = "x"\n')
    flagged = profile_from(pytester, "--pagination=cursor_parameter=page,items_member=items")
    assert flagged.pagination == {"cursor_parameter": "page", "items_member": "items"}
    with pytest.raises(pytest.UsageError, match="not KEY=NAME"):
        profile_from(pytester, "--pagination=page")


def test_relative_paths_in_a_profile_file_are_from_its_folder(pytester, tmp_path):
    """A profile travels with its key, waivers, baseline and adapter file: a run started
    from any folder finds them. Flags and the environment keep the working folder's."""
    folder = pytester.mkdir("ci")
    (folder / "keys").mkdir()
    (folder / "keys" / "service.pem").write_text(KEY_PEM)
    profile_file = folder / "profile.toml"
    profile_file.write_text(
        'webhook_public_key = "keys/service.pem"\nwaivers = "waivers.toml"\n'
        'baseline = "../before/summary.json"\nadapter = "adapters/mine.py"\n'
    )
    config = pytester.parseconfig(f"{opt.PROFILE_FLAG}={profile_file}")
    other = pytester.mkdir("elsewhere")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(other)  # not the profile's folder
        profile = load_profile(config, {})
        assert profile.webhook_public_key == KEY_PEM
        assert profile.waivers == str(folder / "waivers.toml")
        assert profile.baseline == str(folder / ".." / "before" / "summary.json")
        assert profile.adapter == str(folder / "adapters" / "mine.py")
        # a module name is not a path; PEM text is not a path
        profile_file.write_text(f'adapter = "my_adapter"\nwebhook_public_key = """{KEY_PEM}"""\n')
        profile = load_profile(config, {})
        assert profile.adapter == "my_adapter" and profile.webhook_public_key == KEY_PEM
        # flags and the environment: from the working folder, as typed
        profile = load_profile(
            pytester.parseconfig(f"{opt.PROFILE_FLAG}={profile_file}", "--waivers=w.toml"),
            {"CONFORMANCE_BASELINE": "b.json"},
        )
        assert (profile.waivers, profile.baseline) == ("w.toml", "b.json")


def test_profile_errors_name_the_option_as_the_user_typed_it(pytester):
    with pytest.raises(pytest.UsageError, match=r"--conformance-profile='nope\.toml'"):
        profile_from(pytester, f"{opt.PROFILE_FLAG}=nope.toml")
    try:
        opt.use_run_spelling()  # as `conformance run` does before pytest starts
        with pytest.raises(pytest.UsageError, match=r"^conformance: --profile='nope\.toml'"):
            profile_from(pytester, f"{opt.PROFILE_FLAG}=nope.toml")
    finally:
        opt._TYPED.clear()
