"""The pure parts of the cache steps: request prompts and reading an unusable-directory report."""

from llama_bdd.client.cache import NamedPrompt
from llama_bdd.steplib.cache_disk import CacheDiskState, _whole_log_of, lines_naming
from llama_bdd.steplib.core.state import CacheState, ScenarioState


def test_named_prompts_become_request_prompts():
    assert NamedPrompt("A", text="Once upon a time").payload_prompt("<m>") == "Once upon a time"
    assert NamedPrompt("L", tokens=[100, 100]).payload_prompt("<m>") == [100, 100]
    image = NamedPrompt("I", text="What is this: {marker}", image_base64="aGk=").payload_prompt("<__media_x__>")
    assert image == {"prompt_string": "What is this: <__media_x__>", "multimodal_data": ["aGk="]}


def test_command_line_echoes_do_not_count_as_naming_a_path():
    log = ("### llama-bdd started: llama-server --port 1 --cache-disk /w/file/disk-cache\n"
           "  injected by the harness: --port 1 --cache-disk /w/file/disk-cache\n"
           "error while handling argument \"--cache-disk\": not a directory: /w/file/disk-cache\n")
    assert lines_naming(log, "/w/file") == ['error while handling argument "--cache-disk": not a directory: '
                                            '/w/file/disk-cache']
    assert lines_naming(log.splitlines()[0], "/w/file") == []


def test_a_failed_start_is_judged_by_its_whole_log(tmp_path):
    log = tmp_path / "server-001.log"
    log.write_text("error: /w/file is not a directory\n" + "noise\n" * 100)
    failure = f"ServerStartError: llama-server exited with code 1.\nlast 40 lines of the server log {log}:\nnoise\n"
    state = ScenarioState(name="x", workdir=tmp_path, server_logs=[log])
    assert "error: /w/file is not a directory" in _whole_log_of(state, failure)
    assert _whole_log_of(ScenarioState(name="y", workdir=tmp_path), "no log here") == "no log here"


def test_each_step_module_gets_its_own_state_made_on_first_use(tmp_path):
    state = ScenarioState(name="x", workdir=tmp_path)
    state.part(CacheState).prompts["A"] = NamedPrompt("A", text="Once upon a time")
    state.part(CacheDiskState).complete_size = 42
    assert state.part(CacheState).prompts["A"].text == "Once upon a time"
    assert state.part(CacheDiskState).complete_size == 42 and not state.part(CacheDiskState).start_attempted
    assert ScenarioState(name="y", workdir=tmp_path).part(CacheState).prompts == {}
