"""The client floor of the server modes: router listings and waits, sleep, speculative decoding counters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llama_bdd.client import router, sleep, speculative
from llama_bdd.client.answers import Completion
from llama_bdd.harness.config import ServerConfig
from llama_bdd.harness.http import Exchange


def answer(status: int, body, path: str = "/x", method: str = "GET") -> Exchange:
    text = body if isinstance(body, str) else json.dumps(body)
    return Exchange(method=method, url=f"http://127.0.0.1:1{path}", status=status, response_text=text)


class ScriptedHttp:
    """Answers each path from a list of bodies, one per request (the last one repeats)."""

    def __init__(self, script: dict[str, list]):
        self.script = {path: list(bodies) for path, bodies in script.items()}
        self.history: list[Exchange] = []
        self.sent: list[tuple[str, str, object]] = []

    def request(self, method, path, json_body=None, **kwargs):
        self.sent.append((method, path, json_body))
        bodies = self.script[path]
        status, body = bodies.pop(0) if len(bodies) > 1 else bodies[0]
        exchange = answer(status, body, path, method)
        if kwargs.get("record", True):
            self.history.append(exchange)
        return exchange

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, json_body=None, **kwargs):
        return self.request("POST", path, json_body, **kwargs)


def listing(**statuses):
    data = []
    for name, value in statuses.items():
        status = {"value": value} if isinstance(value, str) else value
        data.append({"id": name, "object": "model", "status": status})
    return 200, {"object": "list", "data": data}


# ----------------------------------------------------------------------------------------------
# router
# ----------------------------------------------------------------------------------------------

def test_router_listing_is_validated_and_read():
    http = ScriptedHttp({"/models": [listing(alpha="loaded", beta="unloaded")]})
    _, models = router.list_models(http)
    assert models["alpha"].value == "loaded" and models["beta"].value == "unloaded"
    with pytest.raises(AssertionError, match="status.value of beta"):
        router.expect_listing(http, "/models", ["alpha", "beta"], "loaded")
    with pytest.raises(AssertionError, match="models listed by /models"):
        router.expect_listing(http, "/models", ["alpha"], "loaded")


@pytest.mark.parametrize("body", [{"data": []}, {"object": "list", "data": [{"id": "a", "object": "model"}]},
                                  {"object": "list", "data": [{"id": "a", "object": "model",
                                                               "status": {"value": "asleep"}}]}])
def test_a_listing_that_is_no_router_listing_fails(body):
    http = ScriptedHttp({"/models": [(200, body)]})
    with pytest.raises(AssertionError, match="not a router's model listing"):
        router.list_models(http)


def test_only_the_two_listings_are_listings():
    with pytest.raises(AssertionError, match="no model listing"):
        router.list_models(ScriptedHttp({}), "/props")


def test_watch_status_returns_the_passage(monkeypatch):
    monkeypatch.setattr(router, "POLL_INTERVAL", 0)
    http = ScriptedHttp({"/models": [listing(a="loading"), listing(a="loading"), listing(a="loaded")]})
    seen = router.watch_status(http, "a", "loaded", timeout=5)
    assert seen == ["loading", "loaded"]
    router.expect_passage(seen, ["loading", "loaded"], "a")
    with pytest.raises(AssertionError, match="should pass through loading -> loaded"):
        router.expect_passage(["loaded"], ["loading", "loaded"], "a")


def test_watch_status_bails_out_when_the_instance_failed(monkeypatch):
    monkeypatch.setattr(router, "POLL_INTERVAL", 0)
    failed = {"value": "unloaded", "failed": True, "exit_code": 1}
    http = ScriptedHttp({"/models": [listing(a="loading"), listing(a=failed)]})
    with pytest.raises(AssertionError, match="failed \\(exit code 1\\)"):
        router.watch_status(http, "a", "loaded", timeout=30)


def test_watch_status_is_bounded(monkeypatch):
    monkeypatch.setattr(router, "POLL_INTERVAL", 0)
    http = ScriptedHttp({"/models": [listing(a="loading")]})
    with pytest.raises(AssertionError, match="did not become loaded"):
        router.watch_status(http, "a", "loaded", timeout=0.05)


def test_load_and_unload_expect_success():
    http = ScriptedHttp({"/models/load": [(200, {"success": True})], "/models/unload": [(400, {"error": {}})]})
    router.load(http, "a")
    assert http.sent[-1] == ("POST", "/models/load", {"model": "a"})
    with pytest.raises(AssertionError, match="expected HTTP 200"):
        router.unload(http, "a")


def test_models_dir_links_the_default_model_then_the_second(tmp_path: Path):
    default, second = tmp_path / "default.gguf", tmp_path / "second.gguf"
    default.write_bytes(b"default")
    second.write_bytes(b"second")
    router.populate_models_dir(tmp_path / "dir", ["alpha", "beta", "gamma"], default, second)
    assert [(tmp_path / "dir" / f"{n}.gguf").read_bytes() for n in ("alpha", "beta", "gamma")] == \
        [b"default", b"second", b"second"]
    router.populate_models_dir(tmp_path / "dir", ["alpha", "beta"], default, None)  # again: replaced
    assert (tmp_path / "dir" / "beta.gguf").read_bytes() == b"default"


def test_second_model_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(router.SECOND_MODEL_ENV, raising=False)
    assert router.second_model_from_env() is None
    monkeypatch.setenv(router.SECOND_MODEL_ENV, str(tmp_path / "missing.gguf"))
    with pytest.raises(AssertionError, match="no such file"):
        router.second_model_from_env()


def test_preset_text_names_the_default_model():
    assert router.preset_text("[m]\nmodel = {default_model}", Path("/m/x.gguf")) == "[m]\nmodel = /m/x.gguf\n"


def test_routed_chat_must_name_its_model_and_be_complete():
    body = {"model": "beta", "choices": [{"finish_reason": "length"}], "usage": {"completion_tokens": 2}}
    router.expect_routed_chat(answer(200, body), "beta", 2)
    with pytest.raises(AssertionError, match="model of the answer"):
        router.expect_routed_chat(answer(200, body), "alpha", 2)
    with pytest.raises(AssertionError, match="usage.completion_tokens"):
        router.expect_routed_chat(answer(200, body), "beta", 16)


def test_a_router_config_passes_no_model():
    config = ServerConfig(without_model=True, options={"--models-dir": "/d"})
    assert "--model" not in [flag.name for flag in config.flags()]


# ----------------------------------------------------------------------------------------------
# sleep
# ----------------------------------------------------------------------------------------------

def test_wait_until_asleep(monkeypatch):
    monkeypatch.setattr(sleep, "SLEEP_POLL_INTERVAL", 0)
    http = ScriptedHttp({"/props": [(200, {"is_sleeping": False}), (200, {"is_sleeping": True})]})
    sleep.wait_until_asleep(http, timeout=5)
    never = ScriptedHttp({"/props": [(200, {"is_sleeping": False})]})
    with pytest.raises(AssertionError, match="did not fall asleep"):
        sleep.wait_until_asleep(never, timeout=0.05)
    with pytest.raises(AssertionError, match="no boolean is_sleeping"):
        sleep.is_sleeping(ScriptedHttp({"/props": [(200, {})]}))


def test_a_read_only_route_must_not_wake_the_server():
    asleep = ScriptedHttp({"/health": [(200, {"status": "ok"})], "/props": [(200, {"is_sleeping": True})]})
    sleep.expect_answer_while_asleep(asleep, "/health")
    woken = ScriptedHttp({"/health": [(200, {"status": "ok"})], "/props": [(200, {"is_sleeping": False})]})
    with pytest.raises(AssertionError, match="woke the server"):
        sleep.expect_answer_while_asleep(woken, "/health")


# ----------------------------------------------------------------------------------------------
# speculative decoding
# ----------------------------------------------------------------------------------------------

METRICS = """# HELP llamacpp:spec_decode_num_draft_tokens_total drafted
# TYPE llamacpp:spec_decode_num_draft_tokens_total counter
llamacpp:spec_decode_num_draft_tokens_total 5
# HELP llamacpp:spec_decode_num_accepted_tokens_total accepted
# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter
llamacpp:spec_decode_num_accepted_tokens_total 4
# HELP llamacpp:spec_decode_num_drafts_total drafts
# TYPE llamacpp:spec_decode_num_drafts_total counter
llamacpp:spec_decode_num_drafts_total 3
# HELP llamacpp:spec_decode_num_accepted_tokens_per_pos_total per position
# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 3
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 1
"""


def completion_with(timings: dict) -> Completion:
    return Completion(content="", predicted_n=1, exchange=answer(200, {}), raw={"timings": timings})


def test_speculation_counters_are_read_with_their_positions():
    counters = speculative.speculation_counters(answer(200, METRICS))
    assert (counters.drafted, counters.accepted, counters.drafts) == (5, 4, 3)
    assert counters.positions == {0: 3, 1: 1}
    speculative.expect_counters_match(counters, [speculative.DraftTimings(5, 4)])
    with pytest.raises(AssertionError, match="sum of the answers' timings.draft_n\\)"):
        speculative.expect_counters_match(counters, [speculative.DraftTimings(6, 4)])
    speculative.expect_draft_sizes(counters, 1, 2)
    with pytest.raises(AssertionError, match="more than 1 tokens"):
        speculative.expect_draft_sizes(counters, 1, 1)
    with pytest.raises(AssertionError, match="fewer than 2"):
        speculative.expect_draft_sizes(counters, 2, 2)


def test_draft_timings():
    assert speculative.draft_timings(completion_with({})) == speculative.DraftTimings(0, 0)
    speculative.expect_drafted_and_accepted(completion_with({"draft_n": 3, "draft_n_accepted": 3}))
    with pytest.raises(AssertionError, match="draft_n_accepted should be in 1..draft_n"):
        speculative.expect_drafted_and_accepted(completion_with({"draft_n": 3, "draft_n_accepted": 4}))
    with pytest.raises(AssertionError, match="nothing was drafted"):
        speculative.expect_drafted_and_accepted(completion_with({}))
    with pytest.raises(AssertionError, match="without the other"):
        speculative.draft_timings(completion_with({"draft_n": 3}))


def test_start_refusal():
    log = "### llama-bdd started: llama-server --spec-type bogus\nerror: unknown speculative type: bogus\n"
    exited = "ServerStartError: llama-server exited with code 1 before it became healthy."
    assert speculative.start_refusal(exited, log, "unknown speculative type") is None
    assert "started" in speculative.start_refusal(None, log, "x")
    assert "without saying" in speculative.start_refusal(exited, log, "--spec-type bogus")
    killed = "ServerStartError: llama-server exited with code -11 before it became healthy."
    assert "error code" in speculative.start_refusal(killed, log, "unknown speculative type")
