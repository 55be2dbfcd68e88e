"""The small parsers of the client floor (embeddings, security, metrics), and key masking end to end."""

import base64
import struct

import pytest

from llama_bdd.harness.capabilities import Capabilities
from llama_bdd.harness.config import ServerConfig
from llama_bdd.harness.launch import build_launch_command
from llama_bdd.client import openai_api
from llama_bdd.client.embeddings import EmbeddingRoute, decode_base64_vector
from llama_bdd.client.metrics import CORE_METRICS, expected_metrics, is_expected, why_expected
from llama_bdd.client.security import credential_headers

HELP = """
-m,    --model FNAME                    model path
--api-key KEY                           API key to use for authentication
--embedding, --embeddings               restrict to only support embedding use case
"""


@pytest.mark.parametrize("phrase, path, client, encoding", [
    ("the openai client", "/v1/embeddings", True, None),
    ("the openai client with encoding_format float", "/v1/embeddings", True, "float"),
    ("the openai client with encoding_format base64", "/v1/embeddings", True, "base64"),
    ("POST /v1/embeddings", "/v1/embeddings", False, None),
    ("POST /v1/embeddings with encoding_format base64", "/v1/embeddings", False, "base64"),
    ("POST /embedding", "/embedding", False, None),
    ("POST /embeddings", "/embeddings", False, None),
])
def test_embedding_routes(phrase, path, client, encoding):
    route = EmbeddingRoute.parse(phrase)
    assert (route.path, route.client, route.encoding) == (path, client, encoding)
    assert route.openai_compatible == (path == "/v1/embeddings")


@pytest.mark.parametrize("phrase", ["POST /embedding with encoding_format base64", "the openai client with "
                                    "encoding_format int8", "GET /v1/embeddings", "openai"])
def test_unknown_embedding_routes_are_refused_with_the_known_ones(phrase):
    with pytest.raises(AssertionError, match="encoding_format|unknown embedding route"):
        EmbeddingRoute.parse(phrase)


def test_base64_embeddings_are_little_endian_float32():
    values = [0.5, -1.25, 3.0]
    assert decode_base64_vector(base64.b64encode(struct.pack("<3f", *values)).decode()) == values
    with pytest.raises(AssertionError, match="whole number of float32"):
        decode_base64_vector(base64.b64encode(b"abcde").decode())


@pytest.mark.parametrize("credentials, headers", [
    ("no key", {}),
    ("an empty key", {"Authorization": "Bearer "}),
    ("the key k1", {"Authorization": "Bearer k1"}),
    ("the key k1,k2", {"Authorization": "Bearer k1,k2"}),
    ("the key k1 in X-Api-Key", {"X-Api-Key": "k1"}),
    ("the key k1 without the Bearer prefix", {"Authorization": "k1"}),
])
def test_credentials(credentials, headers):
    assert credential_headers(credentials) == headers


def test_unknown_credentials_name_the_known_forms():
    with pytest.raises(AssertionError, match="'no key'"):
        credential_headers("a key")


def test_expected_metrics_follow_the_build():
    old = Capabilities(flags=frozenset(), build_number=3000)
    middle = Capabilities(flags=frozenset(), build_number=8000)
    verified = Capabilities(flags=frozenset(), build_number=11434)
    assert "llamacpp:kv_cache_usage_ratio" in expected_metrics(old)
    assert expected_metrics(middle) == CORE_METRICS
    assert "llamacpp:prompt_tokens_cached_total" in expected_metrics(verified)
    assert "llamacpp:kv_cache_usage_ratio" not in expected_metrics(verified)
    assert "b4000" in why_expected("llamacpp:kv_cache_usage_ratio", verified)
    assert expected_metrics(None) == CORE_METRICS
    # "version: 0 (unknown)", a build without build metadata: unknown, never build 0
    unknown = Capabilities.from_help("--metrics   enable\n", "version: 0 (unknown)")
    assert unknown.build_number is None and expected_metrics(unknown) == CORE_METRICS


def test_every_api_key_is_masked_in_the_command_line_and_in_requests():
    config = ServerConfig(api_keys=["first-Key-4711", "second-Key-0815"], embeddings=True)
    command = build_launch_command("llama-server", config.flags(), [], Capabilities.from_help(HELP))
    assert "--api-key" in command.args
    rendered = command.render()
    assert "first-Key-4711" not in rendered and "second-Key-0815" not in rendered and "--api-key '***'" in rendered
    exchange = openai_api.exchange_from_openai("http://127.0.0.1:1/v1/models", {}, "first-Key-4711", None)
    assert "first-Key-4711" not in exchange.describe() and "Bearer ***" in exchange.curl()


def test_a_build_gated_metric_is_expected_only_where_the_build_says_so():
    old = Capabilities(flags=frozenset(), build_number=9093)
    unknown = Capabilities(flags=frozenset(), build_number=None)
    verified = Capabilities(flags=frozenset(), build_number=11434)
    assert not is_expected("llamacpp:prompt_tokens_cached_total", old)
    assert not is_expected("llamacpp:prompt_tokens_cached_total", unknown)
    assert is_expected("llamacpp:prompt_tokens_cached_total", verified)
    assert is_expected("llamacpp:no_such_metric", old)  # a name the scenario uses, not gated: a typo still fails
