"""Argument flattening and alias-aware injection (the GPUStack rules)."""

import pytest

from llama_bdd.harness.capabilities import Capabilities
from llama_bdd.harness.launch import Flag, build_launch_command, flag_value, flatten_params, redact_args

HELP = """
-h,    --help, --usage                  print usage and exit
-c,    --ctx-size N                     size of the prompt context (default: 4096)
-np,   --parallel N                     number of server slots (default: -1)
--host HOST                             ip address to listen
--port PORT                             port to listen (default: 8080)
-m,    --model FNAME                    model path
--context-shift, --no-context-shift     whether to use context shift
--api-key KEY                           API key to use for authentication
-t,    --threads N                      number of CPU threads
"""
CAPS = Capabilities.from_help(HELP)


@pytest.mark.parametrize("params, expected", [
    (["--ctx-size 1024"], ["--ctx-size", "1024"]),
    (["--served-model-name foo"], ["--served-model-name", "foo"]),
    (['--served-model-name "foo bar"'], ["--served-model-name", "foo bar"]),
    (["--arg1", '--arg2 "val with spaces"'], ["--arg1", "--arg2", "val with spaces"]),
    (['--arg1 "val with spaces"', '--arg2="val with spaces"'], ["--arg1", "val with spaces", '--arg2="val with spaces"']),
    (["""--hf-overrides '{"architectures": ["NewModel"]}'""", """--hf-overrides={"architectures": ["NewModel"]}"""],
     ["--hf-overrides", '{"architectures": ["NewModel"]}', """--hf-overrides={"architectures": ["NewModel"]}"""]),
    ([" --ctx-size=1024"], ["--ctx-size=1024"]),
    (["--ctx-size =1024"], ["--ctx-size=1024"]),
    (["  --ctx-size  =1024"], ["--ctx-size=1024"]),
    (["--ctx-size  =  1024"], ["--ctx-size=1024"]),
    (["  --ctx-size 1024"], ["--ctx-size", "1024"]),
    (["--foo =bar", "  --baz  =  qux"], ["--foo=bar", "--baz=qux"]),
    (["--threads 2 --ctx-size 512"], ["--threads", "2", "--ctx-size", "512"]),
    ([""], []),
    (None, []),
])
def test_flatten_params(params, expected):
    assert flatten_params(params) == expected


def command(user_args, flags=None):
    flags = flags or [Flag("--host", ("127.0.0.1",)), Flag("--port", ("8123",)), Flag("--ctx-size", ("256",)),
                      Flag("--parallel", ("2",))]
    return build_launch_command("llama-server", flags, user_args, CAPS)


def test_injected_flags_come_first_and_are_marked():
    cmd = command(["--threads", "2"])
    assert cmd.injected == ["--host", "127.0.0.1", "--port", "8123", "--ctx-size", "256", "--parallel", "2"]
    assert cmd.args == [*cmd.injected, "--threads", "2"]
    assert "injected by the harness: --host 127.0.0.1" in cmd.render()


@pytest.mark.parametrize("user_args, dropped", [
    (["-c", "1024"], "--ctx-size"),
    (["--ctx-size", "1024"], "--ctx-size"),
    (["--ctx-size=1024"], "--ctx-size"),
    (["-np", "4"], "--parallel"),
    (["--parallel=4"], "--parallel"),
])
def test_user_flag_wins_under_any_alias(user_args, dropped):
    cmd = command(user_args)
    assert dropped not in cmd.injected
    assert cmd.overridden == [dropped]
    assert cmd.user == user_args


def test_negative_form_counts_as_passed():
    cmd = command(["--no-context-shift"], [Flag("--context-shift")])
    assert cmd.injected == [] and cmd.overridden == ["--context-shift"]


def test_unsupported_required_flag_is_reported_not_passed():
    cmd = command([], [Flag("--cache-disk", ("/tmp/x",)), Flag("--ctx-size", ("64",))])
    assert cmd.unsupported == ["--cache-disk"]
    assert "--cache-disk" not in cmd.args


def test_unsupported_optional_flag_is_dropped_silently():
    cmd = command([], [Flag("--log-colors", ("off",), required=False)])
    assert cmd.unsupported == [] and cmd.args == []


def test_negative_numbers_are_values_not_flags():
    cmd = command(["--n-predict", "-1"], [Flag("--n-predict", ("8",))])
    assert cmd.overridden == ["--n-predict"]


def test_api_keys_are_masked_when_rendered():
    assert redact_args(["--api-key", "s3cret", "--x"]) == ["--api-key", "***", "--x"]
    assert redact_args(["--api-key=s3cret"]) == ["--api-key=***"]
    rendered = command(["--api-key", "s3cret"]).render()
    assert "s3cret" not in rendered


def test_flag_value():
    assert flag_value(["--port", "9000"], "--port") == "9000"
    assert flag_value(["--port=9001"], "--port") == "9001"
    assert flag_value(["--portable"], "--port") is None
